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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer's host name is looked up off the caller's thread: a lookup that hangs (an unreachable DNS
 * server) holds up neither the caller, which may be an event loop, nor connections to other peers,
 * and the connection fails within {@code transport.connect.timeout}.
 */
class HostLookupTest {
  private static final String HANGING = "hanging.peer.invalid";
  private static final String SLOW = "slow.peer.invalid";
  private static final String UNKNOWN = "unknown.peer.invalid";

  @TempDir Path dir;

  private final CountDownLatch hang = new CountDownLatch(1);
  private final CountDownLatch slow = new CountDownLatch(1);
  private TransportServer server;
  private TransportClientFactory factory;

  @BeforeEach
  void start() throws Exception {
    TransportConf conf =
        TransportTestSupport.conf(Map.of(TransportOptions.CONNECT_TIMEOUT.key(), "1s"));
    server =
        TransportTestSupport.context(conf, "server-1")
            .createServer("127.0.0.1", 0, new TestHandler(dir.resolve("none")));
    HostResolver resolver =
        new HostResolver(
            host -> {
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
    CompletableFuture<TransportClient> hanging = connectWithoutWaiting(HANGING);
    assertFalse(hanging.isDone());

    TransportClient byAddress = factory.getClient("127.0.0.1", server.port());
    assertEquals(StatusCode.OK, heartbeat(byAddress).status());

    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> hanging.get(30, TimeUnit.SECONDS));
    assertInstanceOf(IOException.class, failed.getCause());
    assertTrue(
        failed.getCause().getMessage().contains(TransportOptions.CONNECT_TIMEOUT.key()),
        failed.getCause().getMessage());
  }

  @Test
  void aSlowLookupStillConnects() throws Exception {
    CompletableFuture<TransportClient> pending = connectWithoutWaiting(SLOW);
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
  private CompletableFuture<TransportClient> connectWithoutWaiting(String host) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> factory.getClientAsync(host, server.port()));
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
