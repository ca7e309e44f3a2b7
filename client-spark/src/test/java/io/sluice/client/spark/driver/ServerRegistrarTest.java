package io.sluice.client.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import io.sluice.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's calls to shuffle servers, against scripted servers on loopback sockets: the
 * application is registered before its shuffle on every server and once only, a restarted server
 * gets the application again from the next heart-beat or before the next shuffle, and a silent
 * server delays none of the calls past the call timeout.
 */
class ServerRegistrarTest {
  private static final String APP = "app-registrar";
  private static final Duration TIMEOUT = Duration.ofMillis(500);
  private static final MessageType REGISTER_APP = MessageType.REGISTER_APPLICATION_REQUEST;
  private static final MessageType REGISTER_SHUFFLE = MessageType.REGISTER_SHUFFLE_REQUEST;
  private static final MessageType HEARTBEAT = MessageType.APP_HEARTBEAT_REQUEST;
  private static final MessageType UNREGISTER_APP = MessageType.UNREGISTER_APPLICATION_REQUEST;

  private final List<TransportServer> servers = new ArrayList<>();
  private TransportContext context;
  private TransportClientFactory clients;
  private ServerRegistrar registrar;

  @BeforeEach
  void start() {
    context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "driver", PooledByteBufAllocator.DEFAULT);
    clients = context.createClientFactory();
    registrar = new ServerRegistrar(clients, APP, "tester", TIMEOUT);
  }

  @AfterEach
  void stop() {
    clients.close();
    servers.forEach(TransportServer::close);
  }

  @Test
  void theApplicationIsRegisteredBeforeItsShuffleOnEveryServer() throws Exception {
    Scripted a = new Scripted();
    Scripted b = new Scripted();

    registrar.register(List.of(address("a", a), address("b", b)), 3, 10).get(10, TimeUnit.SECONDS);

    for (Scripted s : List.of(a, b)) {
      assertEquals(List.of(REGISTER_APP, REGISTER_SHUFFLE), s.types());
      RegisterShuffleRequest shuffle = (RegisterShuffleRequest) s.received.get(1);
      assertEquals(APP, shuffle.appId());
      assertEquals(3, shuffle.shuffleId());
      assertEquals(10, shuffle.numPartitions());
    }
  }

  @Test
  void laterShufflesRegisterWithOneRequestPerServer() throws Exception {
    Scripted a = new Scripted();
    ServerAddress server = address("a", a);
    registrar.register(List.of(server), 0, 4).get(10, TimeUnit.SECONDS);

    registrar.register(List.of(server), 1, 4).get(10, TimeUnit.SECONDS);

    assertEquals(List.of(REGISTER_APP, REGISTER_SHUFFLE, REGISTER_SHUFFLE), a.types());
  }

  @Test
  void aServerThatForgotTheApplicationGetsItAgainBeforeTheShuffle() throws Exception {
    Scripted restarted = new Scripted();
    ServerAddress server = address("restarted", restarted);
    registrar.register(List.of(server), 0, 4).get(10, TimeUnit.SECONDS);
    restarted.forgetTheApplicationOnce();

    registrar.register(List.of(server), 1, 4).get(10, TimeUnit.SECONDS);

    assertEquals(
        List.of(REGISTER_APP, REGISTER_SHUFFLE, REGISTER_SHUFFLE, REGISTER_APP, REGISTER_SHUFFLE),
        restarted.types());
  }

  /**
   * A server still deleting an earlier registration of the same shuffle id (Spark removed the
   * shuffle and revives it) answers BUSY for a moment: the registration is sent again, not failed.
   */
  @Test
  void aShuffleRegistrationAnsweredBusyIsSentAgain() throws Exception {
    Scripted deleting = new Scripted();
    ServerAddress server = address("deleting", deleting);
    registrar.register(List.of(server), 0, 4).get(10, TimeUnit.SECONDS);
    deleting.answerShuffleRegistrationsBusy(3);

    registrar.register(List.of(server), 0, 4).get(10, TimeUnit.SECONDS);

    assertEquals(
        List.of(
            REGISTER_APP,
            REGISTER_SHUFFLE,
            REGISTER_SHUFFLE,
            REGISTER_SHUFFLE,
            REGISTER_SHUFFLE,
            REGISTER_SHUFFLE),
        deleting.types());
  }

  @Test
  void aSilentServerFailsTheRegistrationWithinTheCallTimeoutNamingIt() throws Exception {
    Scripted live = new Scripted();
    Scripted silent = new Scripted().silent();
    ServerAddress silentAddress = address("silent", silent);

    long start = System.nanoTime();
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                registrar
                    .register(List.of(address("live", live), silentAddress), 1, 4)
                    .get(30, TimeUnit.SECONDS));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertInstanceOf(IllegalStateException.class, e.getCause());
    assertTrue(
        e.getCause().getMessage().contains(silentAddress.toString()), e.getCause().getMessage());
    assertTrue(
        e.getCause().getMessage().contains("within spark.sluice.call.timeout (PT0.5S)"),
        e.getCause().getMessage());
    assertTrue(tookMillis < 10_000, "took " + tookMillis + " ms against a 500 ms timeout");
    assertEquals(
        List.of(REGISTER_APP, REGISTER_SHUFFLE),
        live.types(),
        "the live server was registered all the same");
  }

  @Test
  void aServerThatForgotTheApplicationGetsItAgainFromTheNextHeartbeat() throws Exception {
    Scripted restarted = new Scripted();
    registrar.register(List.of(address("restarted", restarted)), 0, 1).get(10, TimeUnit.SECONDS);
    restarted.answerHeartbeats(StatusCode.UNKNOWN_APPLICATION);

    registrar.heartbeat();

    Await.until(() -> restarted.types().size() == 4, "a heartbeat, then a new registration");
    assertEquals(
        List.of(REGISTER_APP, REGISTER_SHUFFLE, HEARTBEAT, REGISTER_APP), restarted.types());
  }

  @Test
  void heartbeatsNeverWaitForAServer() throws Exception {
    Scripted silent = new Scripted();
    Scripted live = new Scripted();
    registrar
        .register(List.of(address("silent", silent), address("live", live)), 0, 1)
        .get(10, TimeUnit.SECONDS);
    silent.silent();

    long start = System.nanoTime();
    registrar.heartbeat();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertTrue(tookMillis < TIMEOUT.toMillis(), "heartbeat() took " + tookMillis + " ms");
    Await.until(() -> live.types().contains(HEARTBEAT), "the live server's heartbeat");
  }

  @Test
  void unregisteringTheApplicationWaitsAtMostTheCallTimeout() throws Exception {
    Scripted silent = new Scripted();
    Scripted live = new Scripted();
    registrar
        .register(List.of(address("silent", silent), address("live", live)), 0, 1)
        .get(10, TimeUnit.SECONDS);
    silent.silent();

    long start = System.nanoTime();
    registrar.unregisterApplication();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertTrue(tookMillis < 10_000, "took " + tookMillis + " ms against a 500 ms timeout");
    assertTrue(live.types().contains(UNREGISTER_APP));
  }

  private ServerAddress address(String id, Scripted handler) {
    TransportServer s = context.createServer("127.0.0.1", 0, handler);
    servers.add(s);
    return new ServerAddress(id, "127.0.0.1", s.port());
  }

  /**
   * A shuffle server that keeps what it receives and answers OK, heart-beats with a chosen status,
   * or, once silent, nothing at all.
   */
  private static final class Scripted implements RequestHandler {
    final List<RequestMessage> received = new CopyOnWriteArrayList<>();
    private volatile boolean silent;
    private volatile StatusCode heartbeatStatus = StatusCode.OK;
    private volatile boolean forgetOnce;
    private final AtomicInteger busyRegistrations = new AtomicInteger();

    Scripted silent() {
      silent = true;
      return this;
    }

    void answerHeartbeats(StatusCode status) {
      heartbeatStatus = status;
    }

    /** The next {@code times} shuffle registrations are answered BUSY. */
    void answerShuffleRegistrationsBusy(int times) {
      busyRegistrations.set(times);
    }

    /** The next shuffle registration is answered as by a server that restarted since. */
    void forgetTheApplicationOnce() {
      forgetOnce = true;
    }

    List<MessageType> types() {
      return received.stream().map(RequestMessage::type).toList();
    }

    @Override
    public void handle(TransportChannel channel, RequestMessage request) {
      ReferenceCountUtil.release(request);
      if (silent) {
        return;
      }
      received.add(request);
      if (request.type() == REGISTER_SHUFFLE && busyRegistrations.getAndDecrement() > 0) {
        channel.respond(
            StatusResponse.error(
                request.requestId(), StatusCode.BUSY, "an earlier registration is being deleted"));
      } else if (request.type() == REGISTER_SHUFFLE && forgetOnce) {
        forgetOnce = false;
        channel.respond(
            StatusResponse.error(
                request.requestId(), StatusCode.UNKNOWN_APPLICATION, "no application " + APP));
      } else if (request.type() == HEARTBEAT && heartbeatStatus != StatusCode.OK) {
        channel.respond(
            StatusResponse.error(request.requestId(), heartbeatStatus, "no application " + APP));
      } else {
        channel.respond(StatusResponse.ok(request.requestId()));
      }
    }
  }
}
