package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportClientFactoryTest {
  @TempDir Path dir;

  private Path dataFile;
  private byte[] data;
  private TransportServer server;
  private TransportClientFactory factory;
  private TestHandler handler;

  @BeforeEach
  void start() throws Exception {
    data = new byte[3 << 20];
    new Random(7).nextBytes(data);
    dataFile = Files.write(dir.resolve("data"), data);
    handler = new TestHandler(dataFile);
    TransportConf conf = TransportTestSupport.conf(Map.of(
        TransportOptions.CONNECTIONS_PER_PEER.key(), "2"));
    server = TransportTestSupport.context(conf, "server-1").createServer("127.0.0.1", 0, handler);
    factory = TransportTestSupport.context(conf, "client-1").createClientFactory();
  }

  @AfterEach
  void stop() {
    factory.close();
    server.close();
  }

  @Test
  void manyThreadsShareAFewConnections() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Set<TransportClient>>> results = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        results.add(pool.submit(() -> {
          Set<TransportClient> used = new HashSet<>();
          List<CompletableFuture<StatusResponse>> answers = new ArrayList<>();
          for (int i = 0; i < 200; i++) {
            TransportClient client = factory.getClient("127.0.0.1", server.port());
            used.add(client);
            answers.add(client.request(
                new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                StatusResponse.class));
          }
          for (CompletableFuture<StatusResponse> a : answers) {
            assertEquals(StatusCode.OK, a.get(10, TimeUnit.SECONDS).status());
          }
          return used;
        }));
      }
      Set<TransportClient> all = new HashSet<>();
      for (Future<Set<TransportClient>> f : results) {
        all.addAll(f.get(30, TimeUnit.SECONDS));
      }
      assertTrue(all.size() <= 2, "expected at most 2 pooled connections, saw " + all.size());
      assertEquals(16 * 200, handler.handled.get());
      assertEquals(all.size(), factory.activeConnections());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void brokenConnectionIsReplaced() throws Exception {
    TransportConf single = TransportTestSupport.conf(
        Map.of(TransportOptions.CONNECTIONS_PER_PEER.key(), "1"));
    try (TransportClientFactory one =
        TransportTestSupport.context(single, "client-2").createClientFactory()) {
      TransportClient first = one.getClient("127.0.0.1", server.port());
      assertSame(first, one.getClient("127.0.0.1", server.port()));
      first.close();
      assertFalse(first.isActive());
      TransportClient second = one.getClient("127.0.0.1", server.port());
      assertNotSame(first, second);
      assertTrue(second.isActive());
      assertEquals(1, one.activeConnections());
      StatusResponse ok = second.request(
          new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"), StatusResponse.class)
          .get(5, TimeUnit.SECONDS);
      assertEquals(StatusCode.OK, ok.status());
    }
  }

  @Test
  void timeoutFailsTheRequestAndFreesItsSlot() throws Exception {
    TransportConf impatient = TransportTestSupport.conf(
        Map.of(TransportOptions.REQUEST_TIMEOUT.key(), "300ms"));
    try (TransportClientFactory shortTimeouts =
        TransportTestSupport.context(impatient, "client-3").createClientFactory()) {
      timeoutFailsTheRequest(shortTimeouts.getClient("127.0.0.1", server.port()));
    }
  }

  private void timeoutFailsTheRequest(TransportClient client) throws Exception {
    CompletableFuture<StatusResponse> silent = client.request(
        new AppHeartbeatRequest(TransportClient.nextRequestId(), TestHandler.SILENT_APP),
        StatusResponse.class);
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> silent.get(5, TimeUnit.SECONDS));
    assertInstanceOf(RequestTimeoutException.class, e.getCause());
    assertTrue(e.getCause().getMessage().contains("transport.request.timeout"));
    assertEquals(0, client.outstandingRequests());
    // The connection stays usable for other requests.
    assertEquals(StatusCode.OK, client.request(
        new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"), StatusResponse.class)
        .get(5, TimeUnit.SECONDS).status());
  }

  @Test
  void timedOutRequestReleasesItsBodyWhenTheWriteFails() throws Exception {
    TransportClient client = connectedClient();
    client.close();
    ByteBuf body = Unpooled.directBuffer(16).writeLong(1).writeLong(2);
    NettyManagedBuffer managed = new NettyManagedBuffer(body);
    CompletableFuture<StatusResponse> f = client.request(
        PushRequests.singleBlock(TransportClient.nextRequestId(), managed), StatusResponse.class);
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
    assertInstanceOf(ConnectionClosedException.class, e.getCause());
    assertEquals(0, body.refCnt());
  }

  @Test
  void fileSegmentsTravelZeroCopyAndArriveIntact() throws Exception {
    TransportClient client = connectedClient();
    int offset = 12345;
    int length = 2 << 20;
    FetchDataResponse response = client.request(
        new FetchDataRequest(TransportClient.nextRequestId(), "app", 1, 2, offset, length),
        FetchDataResponse.class).get(10, TimeUnit.SECONDS);
    try (InputStream in = response.body().createInputStream()) {
      byte[] got = in.readAllBytes();
      assertEquals(length, got.length);
      for (int i = 0; i < length; i++) {
        if (got[i] != data[offset + i]) {
          throw new AssertionError("byte " + i + " differs");
        }
      }
    } finally {
      ReferenceCountUtil.release(response);
    }
  }

  @Test
  void connectionRefusedIsReportedAtOnce() {
    int deadPort;
    try (TransportServer s = TransportTestSupport.context(
        TransportTestSupport.conf(Map.of()), "tmp").createServer("127.0.0.1", 0, handler)) {
      deadPort = s.port();
    }
    long start = System.nanoTime();
    Exception e = assertThrows(Exception.class, () -> factory.getClient("127.0.0.1", deadPort));
    assertTrue(e.getMessage().contains("127.0.0.1:" + deadPort), e.getMessage());
    assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 5);
  }

  private TransportClient connectedClient() throws Exception {
    return factory.getClient("127.0.0.1", server.port());
  }
}
