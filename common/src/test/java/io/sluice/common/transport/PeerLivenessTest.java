package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transport.liveness.timeout}: a peer that stops answering altogether (frozen behind a
 * relay) is given up long before {@code transport.request.timeout}, and taken back once it answers
 * again; a live peer that leaves one request unanswered (busy) is not given up.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PeerLivenessTest {
  @TempDir Path dir;

  private TransportServer server;
  private TransportClientFactory factory;

  @BeforeEach
  void start() throws Exception {
    TestHandler handler = new TestHandler(Files.write(dir.resolve("data"), new byte[16]));
    TransportConf conf =
        TransportTestSupport.conf(
            Map.of(
                // Probes get 2 s to be answered: a loaded machine must not make a live server look
                // dead.
                TransportOptions.LIVENESS_TIMEOUT.key(), "4s",
                TransportOptions.REQUEST_TIMEOUT.key(), "10m"));
    server = TransportTestSupport.context(conf, "server-1").createServer("127.0.0.1", 0, handler);
    factory = TransportTestSupport.context(conf, "client-1").createClientFactory();
  }

  @AfterEach
  void stop() {
    factory.close();
    server.close();
  }

  @Test
  void aFrozenPeerIsGivenUpAndTakenBackWhenItAnswersAgain() throws Exception {
    try (FreezableRelay relay = new FreezableRelay("127.0.0.1", server.port())) {
      assertEquals(
          StatusCode.OK, heartbeat(relay.port(), "app").get(30, TimeUnit.SECONDS).status());
      relay.freeze();

      CompletableFuture<StatusResponse> stuck = heartbeat(relay.port(), "app");
      Throwable cause = failure(stuck);
      assertInstanceOf(PeerUnresponsiveException.class, cause, cause.toString());
      assertTrue(
          cause.getMessage().contains(TransportOptions.LIVENESS_TIMEOUT.key()), cause.getMessage());
      Throwable refused = failure(factory.getClientAsync("127.0.0.1", relay.port()));
      assertInstanceOf(
          PeerUnresponsiveException.class, refused, "a peer given up gets no new connection");

      relay.thaw();
      awaitAnswered(relay.port());
    }
  }

  @Test
  void aLivePeerThatLeavesARequestUnansweredIsNotGivenUp() throws Exception {
    CompletableFuture<StatusResponse> unanswered = heartbeat(server.port(), TestHandler.SILENT_APP);
    // Several silences (2 s each) and probes later, the connection and the peer are still in use.
    // Time itself is what the test waits for here: there is no condition to wait on.
    for (int i = 0; i < 3; i++) {
      Thread.sleep(3_000);
      assertEquals(
          StatusCode.OK, heartbeat(server.port(), "app").get(30, TimeUnit.SECONDS).status());
    }
    assertTrue(!unanswered.isDone(), "the unanswered request still waits for its answer");
  }

  private CompletableFuture<StatusResponse> heartbeat(int port, String app) {
    return factory
        .getClientAsync("127.0.0.1", port)
        .thenCompose(
            c ->
                c.request(
                    new AppHeartbeatRequest(TransportClient.nextRequestId(), app),
                    StatusResponse.class));
  }

  private void awaitAnswered(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        heartbeat(port, "app").get(30, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the thawed peer was not taken back", e);
        }
        Thread.sleep(100);
      }
    }
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(60, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
