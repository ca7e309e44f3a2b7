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
 * again; requests that can go elsewhere leave it before that verdict; a live peer that leaves one
 * request unanswered (busy) is neither given up nor left.
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

  /**
   * A request that can go to another server (a push, a forward, a commit) fails once the frozen
   * peer's probe has gone unanswered for a quarter of the timeout, while a plain request on the
   * same connection still waits for the verdict, which comes at the full timeout.
   */
  @Test
  void aRequestThatCanGoElsewhereLeavesAFrozenPeerBeforeItIsGivenUp() throws Exception {
    // A timeout of 8 s: the peer is in doubt from 6 s on and given up at 8 s, so that even a
    // loaded machine tells the two apart.
    TransportConf conf =
        TransportTestSupport.conf(
            Map.of(
                TransportOptions.LIVENESS_TIMEOUT.key(), "8s",
                TransportOptions.REQUEST_TIMEOUT.key(), "10m"));
    try (TransportClientFactory clients =
            TransportTestSupport.context(conf, "client-2").createClientFactory();
        FreezableRelay relay = new FreezableRelay("127.0.0.1", server.port())) {
      TransportClient client =
          clients.getClientAsync("127.0.0.1", relay.port()).get(30, TimeUnit.SECONDS);
      relay.freeze();
      CompletableFuture<StatusResponse> waits =
          client.request(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
              StatusResponse.class);
      CompletableFuture<StatusResponse> leaves =
          client.requestOrLeave(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
              StatusResponse.class);
      Throwable left = failure(leaves);
      assertInstanceOf(PeerUnresponsiveException.class, left, left.toString());
      assertTrue(left.getMessage().contains("has not answered a probe"), left.getMessage());
      assertTrue(!waits.isDone(), "a plain request waits for the verdict");
      Throwable later =
          failure(
              client.requestOrLeave(
                  new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                  StatusResponse.class));
      assertInstanceOf(
          PeerUnresponsiveException.class, later, "a new request that can leave fails at once");
      Throwable givenUp = failure(waits);
      assertTrue(
          givenUp.getMessage().contains("answered neither requests nor a probe"),
          givenUp.getMessage());
    }
  }

  @Test
  void aLivePeerThatLeavesARequestUnansweredIsNotGivenUp() throws Exception {
    // 8 s, so that a probe has 2 s before a request that can leave does (4 s before the verdict): a
    // loaded machine must not make a live server look frozen.
    TransportConf conf =
        TransportTestSupport.conf(
            Map.of(
                TransportOptions.LIVENESS_TIMEOUT.key(), "8s",
                TransportOptions.REQUEST_TIMEOUT.key(), "10m"));
    try (TransportClientFactory clients =
        TransportTestSupport.context(conf, "client-3").createClientFactory()) {
      // A request that could go elsewhere: a live peer's probe is answered, so it stays.
      CompletableFuture<StatusResponse> unanswered =
          clients
              .getClientAsync("127.0.0.1", server.port())
              .thenCompose(
                  c ->
                      c.requestOrLeave(
                          new AppHeartbeatRequest(
                              TransportClient.nextRequestId(), TestHandler.SILENT_APP),
                          StatusResponse.class));
      // Several silences (4 s each) and probes later, the connection and the peer are still in
      // use. Time itself is what the test waits for here: there is no condition to wait on.
      for (int i = 0; i < 3; i++) {
        Thread.sleep(5_000);
        CompletableFuture<StatusResponse> beat =
            clients
                .getClientAsync("127.0.0.1", server.port())
                .thenCompose(
                    c ->
                        c.request(
                            new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                            StatusResponse.class));
        assertEquals(StatusCode.OK, beat.get(30, TimeUnit.SECONDS).status());
      }
      assertTrue(!unanswered.isDone(), "the unanswered request still waits for its answer");
    }
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
