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
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    TransportConf conf =
        TransportTestSupport.conf(Map.of(TransportOptions.CONNECTIONS_PER_PEER.key(), "2"));
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
        results.add(
            pool.submit(
                () -> {
                  Set<TransportClient> used = new HashSet<>();
                  List<CompletableFuture<StatusResponse>> answers = new ArrayList<>();
                  for (int i = 0; i < 200; i++) {
                    TransportClient client = factory.getClient("127.0.0.1", server.port());
                    used.add(client);
                    answers.add(
                        client.request(
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

  /**
   * Requests and answers are flushed in batches (BatchingWriter): whatever the interleaving of
   * writers and queued flushes, none may be left unflushed, or its caller would wait for ever.
   * Bursts let the event loops go idle in between, then fill again from eight threads at once.
   */
  @Test
  void everyRequestPipelinedByManyThreadsOnOneConnectionIsAnswered() throws Exception {
    TransportClient client = factory.getClient("127.0.0.1", server.port());
    int threads = 8;
    int bursts = 20;
    int perBurst = 400;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(
            pool.submit(
                () -> {
                  int answered = 0;
                  for (int burst = 0; burst < bursts; burst++) {
                    List<CompletableFuture<StatusResponse>> answers = new ArrayList<>();
                    for (int i = 0; i < perBurst; i++) {
                      answers.add(
                          client.request(
                              new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                              StatusResponse.class));
                    }
                    for (CompletableFuture<StatusResponse> a : answers) {
                      assertEquals(StatusCode.OK, a.get(30, TimeUnit.SECONDS).status());
                      answered++;
                    }
                  }
                  return answered;
                }));
      }
      int total = 0;
      for (Future<Integer> f : results) {
        total += f.get(2, TimeUnit.MINUTES);
      }
      assertEquals(threads * bursts * perBurst, total);
      assertEquals(0, client.outstandingRequests());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void brokenConnectionIsReplaced() throws Exception {
    TransportConf single =
        TransportTestSupport.conf(Map.of(TransportOptions.CONNECTIONS_PER_PEER.key(), "1"));
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
      StatusResponse ok =
          second
              .request(
                  new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                  StatusResponse.class)
              .get(5, TimeUnit.SECONDS);
      assertEquals(StatusCode.OK, ok.status());
    }
  }

  @Test
  void everyRequestIssuedWhileTheConnectionBreaksCompletes() throws Exception {
    // Requests that the server never answers, sent from several threads while the connection
    // closes: each must fail at once, none may hang until (or past) its timeout.
    TransportConf patient =
        TransportTestSupport.conf(Map.of(TransportOptions.REQUEST_TIMEOUT.key(), "10min"));
    ExecutorService senders = Executors.newFixedThreadPool(4);
    try (TransportClientFactory f =
        TransportTestSupport.context(patient, "client-race").createClientFactory()) {
      for (int round = 0; round < 300; round++) {
        TransportClient client = f.getClient("127.0.0.1", server.port());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<CompletableFuture<StatusResponse>>>> sent = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          sent.add(
              senders.submit(
                  () -> {
                    go.await();
                    List<CompletableFuture<StatusResponse>> mine = new ArrayList<>();
                    for (int i = 0; i < 200; i++) {
                      mine.add(
                          client.request(
                              new AppHeartbeatRequest(
                                  TransportClient.nextRequestId(), TestHandler.SILENT_APP),
                              StatusResponse.class));
                    }
                    return mine;
                  }));
        }
        go.countDown();
        client.channel().close();
        for (Future<List<CompletableFuture<StatusResponse>>> s : sent) {
          for (CompletableFuture<StatusResponse> request : s.get(10, TimeUnit.SECONDS)) {
            ExecutionException e =
                assertThrows(
                    ExecutionException.class,
                    () -> request.get(10, TimeUnit.SECONDS),
                    "round " + round);
            assertInstanceOf(IOException.class, e.getCause());
          }
        }
        assertEquals(0, client.outstandingRequests());
      }
    } finally {
      senders.shutdownNow();
    }
  }

  @Test
  void timeoutFailsTheRequestAndFreesItsSlot() throws Exception {
    TransportConf impatient =
        TransportTestSupport.conf(Map.of(TransportOptions.REQUEST_TIMEOUT.key(), "300ms"));
    try (TransportClientFactory shortTimeouts =
        TransportTestSupport.context(impatient, "client-3").createClientFactory()) {
      timeoutFailsTheRequest(shortTimeouts.getClient("127.0.0.1", server.port()));
    }
  }

  private void timeoutFailsTheRequest(TransportClient client) throws Exception {
    CompletableFuture<StatusResponse> silent =
        client.request(
            new AppHeartbeatRequest(TransportClient.nextRequestId(), TestHandler.SILENT_APP),
            StatusResponse.class);
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> silent.get(5, TimeUnit.SECONDS));
    assertInstanceOf(RequestTimeoutException.class, e.getCause());
    assertTrue(e.getCause().getMessage().contains("transport.request.timeout"));
    assertEquals(0, client.outstandingRequests());
    // The connection stays usable for other requests.
    assertEquals(
        StatusCode.OK,
        client
            .request(
                new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                StatusResponse.class)
            .get(5, TimeUnit.SECONDS)
            .status());
  }

  @Test
  void aRequestLargerThanTheServerTakesIsRefusedWithoutLosingTheConnection() throws Exception {
    int limit = 64 * 1024;
    TransportServer small =
        TransportTestSupport.context(
                TransportTestSupport.conf(
                    Map.of(TransportOptions.MAX_FRAME_SIZE.key(), String.valueOf(limit))),
                "small-server")
            .createServer("127.0.0.1", 0, handler);
    try {
      TransportClient client = factory.getClient("127.0.0.1", small.port());
      assertEquals(ProtocolVersion.CURRENT, client.protocolVersion());
      assertEquals(limit, client.serverMaxFrameSize(), "told at the handshake");
      CompletableFuture<StatusResponse> slow =
          client.request(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), TestHandler.SILENT_APP),
              StatusResponse.class);

      ByteBuf body = Unpooled.directBuffer(limit).writeZero(limit);
      CompletableFuture<StatusResponse> tooLarge =
          client.request(
              PushRequests.singleBlock(
                  TransportClient.nextRequestId(), new NettyManagedBuffer(body)),
              StatusResponse.class);
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> tooLarge.get(5, TimeUnit.SECONDS));
      RemoteException refused = assertInstanceOf(RemoteException.class, e.getCause());
      assertEquals(StatusCode.FRAME_TOO_LARGE, refused.status());
      assertTrue(
          refused.getMessage().contains(TransportOptions.MAX_FRAME_SIZE.key()),
          refused.getMessage());
      assertEquals(0, body.refCnt(), "the refused request's body is released");

      assertTrue(client.isActive(), "the connection stays");
      assertFalse(slow.isDone(), "and so does the request outstanding on it");
      client
          .request(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"), StatusResponse.class)
          .get(10, TimeUnit.SECONDS);
    } finally {
      small.close();
    }
  }

  @Test
  void aClientOfProtocolFourIsServedAndToldNoFrameLimit() throws Exception {
    TransportClientFactory older =
        TransportTestSupport.context(TransportTestSupport.conf(Map.of()), "client-of-protocol-4")
            .speakingUpTo(4)
            .createClientFactory();
    try {
      TransportClient client = older.getClient("127.0.0.1", server.port());
      assertEquals(4, client.protocolVersion());
      assertEquals(0, client.serverMaxFrameSize(), "the answer of protocol 4 has no such field");
      client
          .request(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"), StatusResponse.class)
          .get(10, TimeUnit.SECONDS);
    } finally {
      older.close();
    }
  }

  @Test
  void timedOutRequestReleasesItsBodyWhenTheWriteFails() throws Exception {
    TransportClient client = connectedClient();
    client.close();
    ByteBuf body = Unpooled.directBuffer(16).writeLong(1).writeLong(2);
    NettyManagedBuffer managed = new NettyManagedBuffer(body);
    CompletableFuture<StatusResponse> f =
        client.request(
            PushRequests.singleBlock(TransportClient.nextRequestId(), managed),
            StatusResponse.class);
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
    assertInstanceOf(ConnectionClosedException.class, e.getCause());
    assertEquals(0, body.refCnt());
  }

  @Test
  void fileSegmentsTravelZeroCopyAndArriveIntact() throws Exception {
    TransportClient client = connectedClient();
    int offset = 12345;
    int length = 2 << 20;
    FetchDataResponse response =
        client
            .request(
                new FetchDataRequest(TransportClient.nextRequestId(), "app", 1, 2, offset, length),
                FetchDataResponse.class)
            .get(10, TimeUnit.SECONDS);
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
    try (TransportServer s =
        TransportTestSupport.context(TransportTestSupport.conf(Map.of()), "tmp")
            .createServer("127.0.0.1", 0, handler)) {
      deadPort = s.port();
    }
    long start = System.nanoTime();
    Exception e = assertThrows(Exception.class, () -> factory.getClient("127.0.0.1", deadPort));
    assertTrue(e.getMessage().contains("127.0.0.1:" + deadPort), e.getMessage());
    assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 5);
  }

  @Test
  void concurrentCallersShareOneConnection() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    RequestHandler counting =
        new RequestHandler() {
          @Override
          public void handle(TransportChannel channel, RequestMessage request) {
            handler.handle(channel, request);
          }

          @Override
          public void channelActive(TransportChannel channel) {
            connections.incrementAndGet();
          }
        };
    TransportConf single =
        TransportTestSupport.conf(Map.of(TransportOptions.CONNECTIONS_PER_PEER.key(), "1"));
    try (TransportServer counted =
            TransportTestSupport.context(single, "server-2")
                .createServer("127.0.0.1", 0, counting);
        TransportClientFactory one =
            TransportTestSupport.context(single, "client-4").createClientFactory()) {
      List<CompletableFuture<TransportClient>> futures =
          concurrently(16, () -> one.getClientAsync("127.0.0.1", counted.port()));

      TransportClient client = futures.get(0).get(10, TimeUnit.SECONDS);
      for (CompletableFuture<TransportClient> f : futures) {
        assertSame(client, f.get(10, TimeUnit.SECONDS));
      }
      // The server counts a connection after it answered its handshake; by the time it answers
      // a later request on it, it has counted it.
      assertEquals(
          StatusCode.OK,
          client
              .request(
                  new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                  StatusResponse.class)
              .get(5, TimeUnit.SECONDS)
              .status());
      assertEquals(1, connections.get(), "one connection was opened");
      assertEquals(1, one.activeConnections());
    }
  }

  @Test
  void callersDuringAPendingAttemptShareItAndTheConnectTimeoutIsHonoured() throws Exception {
    TransportConf conf =
        TransportTestSupport.conf(
            Map.of(
                TransportOptions.CONNECTIONS_PER_PEER.key(), "1",
                TransportOptions.CONNECT_TIMEOUT.key(), "1s",
                TransportOptions.REQUEST_TIMEOUT.key(), "60s"));
    try (BlackHole hole = new BlackHole();
        TransportClientFactory one =
            TransportTestSupport.context(conf, "client-5").createClientFactory()) {
      long start = System.nanoTime();
      List<CompletableFuture<TransportClient>> futures =
          concurrently(8, () -> one.getClientAsync("127.0.0.1", hole.port()));

      // The peer accepts TCP but never answers the handshake: nobody blocks on it (a caller that
      // waited for the attempt would hold a future already failed by the connect timeout).
      for (CompletableFuture<TransportClient> f : futures) {
        assertSame(futures.get(0), f, "one attempt, shared");
        assertFalse(f.isDone());
      }
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> futures.get(0).get(10, TimeUnit.SECONDS));
      long failedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertInstanceOf(IOException.class, e.getCause());
      assertTrue(
          e.getCause().getMessage().contains("transport.connect.timeout"),
          e.getCause().getMessage());
      // After the connect timeout, and long before the request timeout (60 s) would have failed it.
      assertTrue(failedMillis >= 1_000 && failedMillis < 30_000, "failed after " + failedMillis);
      assertEquals(1, hole.accepted(), "one TCP connection for all callers");
      assertTrue(hole.awaitClosedByClient(0), "the timed-out connection is closed");

      // The failed attempt is not handed out again: the next caller starts a new one.
      CompletableFuture<TransportClient> retry = one.getClientAsync("127.0.0.1", hole.port());
      assertFalse(retry == futures.get(0));
      assertThrows(ExecutionException.class, () -> retry.get(10, TimeUnit.SECONDS));
      assertEquals(2, hole.accepted());
    }
  }

  @Test
  void aRefusedConnectionCompletesExceptionallyWithAnIoException() throws Exception {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    CompletableFuture<TransportClient> f = factory.getClientAsync("127.0.0.1", deadPort);
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
    assertInstanceOf(IOException.class, e.getCause());
    assertTrue(
        e.getCause().getMessage().contains("127.0.0.1:" + deadPort), e.getCause().getMessage());
    assertTrue(f.isCompletedExceptionally());
    CompletableFuture<TransportClient> again = factory.getClientAsync("127.0.0.1", deadPort);
    assertFalse(again == f, "a failed attempt is not handed out again");
    assertThrows(ExecutionException.class, () -> again.get(5, TimeUnit.SECONDS));
    assertEquals(0, factory.activeConnections());
  }

  /** Runs {@code call} on {@code n} threads released at once; returns the results in order. */
  private static <T> List<T> concurrently(int n, Callable<T> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch ready = new CountDownLatch(n);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> results = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        results.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return call.call();
                }));
      }
      ready.await();
      go.countDown();
      List<T> values = new ArrayList<>();
      for (Future<T> r : results) {
        values.add(r.get(10, TimeUnit.SECONDS));
      }
      return values;
    } finally {
      pool.shutdownNow();
    }
  }

  /** A TCP listener that accepts connections and never answers; counts them. */
  private static final class BlackHole implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    BlackHole() throws IOException {
      acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(socket.accept());
                  }
                } catch (IOException closed) {
                  // close() ends the loop
                }
              },
              "black-hole");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    int accepted() throws InterruptedException {
      // The client connected before it could time out; the acceptor may lag a little.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (accepted.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      return accepted.size();
    }

    /** Whether the client closed connection {@code i} (reads what it sent until end of stream). */
    boolean awaitClosedByClient(int i) throws IOException {
      Socket s = accepted.get(i);
      s.setSoTimeout(5_000);
      try {
        while (s.getInputStream().read() >= 0) {
          // the handshake the client sent
        }
        return true;
      } catch (SocketTimeoutException e) {
        return false;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  private TransportClient connectedClient() throws Exception {
    return factory.getClient("127.0.0.1", server.port());
  }
}
