package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.auth.Credentials;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer's host name is looked up off the caller's thread: a lookup that hangs (an unreachable DNS
 * server) holds up neither the caller, which may be an event loop, nor connections to other peers
 * (by address or by name: every attempt at the hanging name shares one lookup), and the connection
 * fails within {@code transport.connect.timeout}.
 */
class HostLookupTest {
  private static final String HANGING = "hanging.peer.invalid";
  private static final String SLOW = "slow.peer.invalid";
  private static final String UNKNOWN = "unknown.peer.invalid";
  private static final String HEALTHY = "healthy.peer.invalid";

  @TempDir Path dir;

  private final CountDownLatch hang = new CountDownLatch(1);
  private final CountDownLatch slow = new CountDownLatch(1);
  private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
  private TransportServer server;
  private TransportClientFactory factory;

  @BeforeEach
  void start() throws Exception {
    TransportConf conf =
        TransportTestSupport.conf(Map.of(TransportOptions.CONNECT_TIMEOUT.key(), "5s"));
    server =
        TransportTestSupport.context(conf, "server-1")
            .createServer("127.0.0.1", 0, new TestHandler(dir.resolve("none")));
    HostResolver resolver =
        new HostResolver(
            host -> {
              lookups.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet();
              switch (host) {
                case HANGING -> await(hang);
                case SLOW -> await(slow);
                case UNKNOWN -> throw new UnknownHostException(host);
                default -> {}
              }
              return InetAddress.getLoopbackAddress();
            });
    factory =
        new TransportClientFactory(
            TransportTestSupport.context(conf, "client-1"), Credentials.none(), resolver);
  }

  @AfterEach
  void stop() {
    hang.countDown();
    slow.countDown();
    factory.close();
    server.close();
  }

  @Test
  void aLookupThatHangsHoldsUpNeitherTheCallerNorOtherPeers() throws Exception {
    CompletableFuture<TransportClient> hanging = connectWithoutWaiting(HANGING, server.port());
    assertFalse(hanging.isDone());
    // More attempts at the hanging name than there are lookup threads, to other ports of it.
    List<CompletableFuture<TransportClient>> more = new ArrayList<>();
    for (int i = 1; i <= HostResolver.THREADS + 4; i++) {
      more.add(connectWithoutWaiting(HANGING, server.port() + i));
    }

    TransportClient byAddress = factory.getClient("127.0.0.1", server.port());
    assertEquals(StatusCode.OK, heartbeat(byAddress).status());
    TransportClient byName =
        factory.getClientAsync(HEALTHY, server.port()).get(30, TimeUnit.SECONDS);
    assertEquals(StatusCode.OK, heartbeat(byName).status());
    assertEquals(1, lookups.get(HANGING).get(), "every attempt at one name shares its lookup");

    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> hanging.get(30, TimeUnit.SECONDS));
    assertInstanceOf(IOException.class, failed.getCause());
    assertTrue(
        failed.getCause().getMessage().contains(TransportOptions.CONNECT_TIMEOUT.key()),
        failed.getCause().getMessage());
    for (CompletableFuture<TransportClient> f : more) {
      assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void aSlowLookupStillConnects() throws Exception {
    CompletableFuture<TransportClient> pending = connectWithoutWaiting(SLOW, server.port());
    assertFalse(pending.isDone());
    slow.countDown();
    assertEquals(StatusCode.OK, heartbeat(pending.get(30, TimeUnit.SECONDS)).status());
  }

  @Test
  void anUnknownNameFailsNamingIt() {
    ExecutionException failed =
        assertThrows(
            ExecutionException.class,
            () -> factory.getClientAsync(UNKNOWN, server.port()).get(30, TimeUnit.SECONDS));
    assertInstanceOf(IOException.class, failed.getCause());
    assertTrue(failed.getCause().getMessage().contains("cannot resolve " + UNKNOWN));
  }

  /** Asks for a connection, failing (rather than hanging) if the call waits for the lookup. */
  private CompletableFuture<TransportClient> connectWithoutWaiting(String host, int port) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> factory.getClientAsync(host, port));
  }

  private static StatusResponse heartbeat(TransportClient client) throws Exception {
    return client
        .request(
            new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"), StatusResponse.class)
        .get(30, TimeUnit.SECONDS);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
