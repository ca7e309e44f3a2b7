package io.sluice.common.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.protocol.message.AssignmentResponse;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import io.sluice.common.transport.TransportServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client against scripted coordinators on loopback ports. */
class CoordinatorClientTest {
  private static final ServerStatus STATUS =
      new ServerStatus(
          "s1",
          "host-1",
          19999,
          19998,
          ServerState.ACTIVE,
          "test",
          0,
          1 << 30,
          0,
          1 << 28,
          0,
          List.of(),
          List.of(),
          0);

  private final TransportContext context =
      new TransportContext(
          new TransportConf(
              SluiceConf.empty()
                  .with(TransportOptions.SERVER_THREADS, "1")
                  .with(TransportOptions.CLIENT_THREADS, "1")
                  .with(TransportOptions.CONNECT_TIMEOUT, "2s")),
          "test",
          PooledByteBufAllocator.DEFAULT);
  private final TransportClientFactory factory = context.createClientFactory();
  private final List<TransportServer> servers = new ArrayList<>();
  private final List<CoordinatorClient> clients = new ArrayList<>();

  @AfterEach
  void stop() {
    clients.forEach(CoordinatorClient::close);
    factory.close();
    servers.forEach(TransportServer::close);
  }

  @Test
  void heartbeatsGoToEveryCoordinatorAndADeadOneIsNoError() throws Exception {
    Scripted a = new Scripted(Map.of());
    Scripted b = new Scripted(Map.of());
    CoordinatorClient client = client(start(a), deadAddress(), start(b));

    assertEquals(2, client.sendHeartbeat(STATUS).get(10, TimeUnit.SECONDS));

    assertEquals(1, a.received.size());
    assertEquals(1, b.received.size());
  }

  @Test
  void aRefusedHeartbeatCountsAsNotAccepted() throws Exception {
    Scripted refusing = new Scripted(Map.of("ServerHeartbeatRequest", StatusCode.INVALID_REQUEST));

    assertEquals(0, client(start(refusing)).sendHeartbeat(STATUS).get(10, TimeUnit.SECONDS));
  }

  @Test
  void requestsFailOverPastUnreachableStoppingAndBusyCoordinators() throws Exception {
    // SHUTTING_DOWN is no longer a retriable status (protocol 2), but a stopping coordinator still
    // tells the client to ask another one.
    Scripted stopping = new Scripted(Map.of("GetAssignmentRequest", StatusCode.SHUTTING_DOWN));
    Scripted busy = new Scripted(Map.of("GetAssignmentRequest", StatusCode.BUSY));
    Scripted good = new Scripted(Map.of());
    CoordinatorClient client = client(deadAddress(), start(stopping), start(busy), start(good));

    AssignmentAnswer answer = client.getAssignment("app", 0, 2, 1, List.of(), List.of());

    assertEquals(2, answer.partitionCount());
    assertEquals(1, stopping.received.size());
    assertEquals(1, busy.received.size());
    assertEquals(1, good.received.size());
  }

  @Test
  void theExcludedServersReachTheCoordinator() throws Exception {
    Scripted good = new Scripted(Map.of());
    CoordinatorClient client = client(start(good));

    client.getAssignment("app", 3, 2, 2, List.of("ssd"), List.of("server-x", "server-y"));

    GetAssignmentRequest request = good.assignments.get(0);
    assertEquals(3, request.shuffleId());
    assertEquals(2, request.replicaCount());
    assertEquals(List.of("ssd"), request.tags());
    assertEquals(List.of("server-x", "server-y"), request.excludedServerIds());
  }

  @Test
  void aNonRetriableAnswerIsReturnedAtOnce() throws Exception {
    Scripted refusing = new Scripted(Map.of("GetAssignmentRequest", StatusCode.NOT_ENOUGH_SERVERS));
    Scripted never = new Scripted(Map.of());
    CoordinatorClient client = client(start(refusing), start(never));

    RemoteException e =
        assertThrows(
            RemoteException.class,
            () -> client.getAssignment("app", 0, 2, 1, List.of(), List.of()));

    assertEquals(StatusCode.NOT_ENOUGH_SERVERS, e.status());
    assertEquals(List.of(), never.received);
  }

  @Test
  void aCoordinatorThatDoesNotKnowTheApplicationGetsItsRegistrationFirst() throws Exception {
    Scripted forgetful = new Scripted(Map.of());
    forgetful.requireRegistration = true;
    CoordinatorClient client = client(start(forgetful));
    client.registerApplication("app", "alice");
    forgetful.registered.clear();

    assertEquals(2, client.getAssignment("app", 0, 2, 1, List.of(), List.of()).partitionCount());

    assertEquals(
        List.of(
            "RegisterApplicationRequest",
            "GetAssignmentRequest",
            "RegisterApplicationRequest",
            "GetAssignmentRequest"),
        forgetful.received);
    forgetful.registered.clear();
    client.appHeartbeat("app");
    assertTrue(forgetful.registered.contains("app"));
  }

  @Test
  void whenNoCoordinatorAnswersTheErrorNamesEachOne() throws Exception {
    CoordinatorAddress dead1 = deadAddress();
    CoordinatorAddress dead2 = deadAddress();
    CoordinatorClient client = client(dead1, dead2);

    IOException e = assertThrows(IOException.class, () -> client.registerApplication("app", "u"));

    assertTrue(
        e.getMessage().startsWith("No coordinator answered the registration of app"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains(dead1.toString()) && e.getMessage().contains(dead2.toString()),
        e.getMessage());
  }

  @Test
  void aSilentCoordinatorTimesOutAndTheNextAnswers() throws Exception {
    Scripted silent = new Scripted(Map.of());
    silent.silent = true;
    Scripted good = new Scripted(Map.of());
    CoordinatorClient client =
        new CoordinatorClient(factory, List.of(start(silent), start(good)), Duration.ofMillis(300));
    clients.add(client);

    client.registerApplication("app", "alice");

    assertEquals(List.of("RegisterApplicationRequest"), good.received);
    assertEquals(1, client.sendHeartbeat(STATUS).get(10, TimeUnit.SECONDS));
  }

  private CoordinatorClient client(CoordinatorAddress... coordinators) {
    CoordinatorClient client =
        new CoordinatorClient(factory, List.of(coordinators), Duration.ofSeconds(5));
    clients.add(client);
    return client;
  }

  private CoordinatorAddress start(Scripted handler) {
    TransportServer server = context.createServer("127.0.0.1", 0, handler);
    servers.add(server);
    return new CoordinatorAddress("127.0.0.1", server.port());
  }

  /** A loopback port nobody listens on (bound, then released). */
  private static CoordinatorAddress deadAddress() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return new CoordinatorAddress("127.0.0.1", socket.getLocalPort());
    }
  }

  /**
   * Answers each request OK (an assignment of two partitions on one server), or with the status
   * scripted for its message class; records what it received.
   */
  private static final class Scripted implements RequestHandler {
    final Map<String, StatusCode> refusals;
    final List<String> received = new CopyOnWriteArrayList<>();
    final List<GetAssignmentRequest> assignments = new CopyOnWriteArrayList<>();
    final Set<String> registered = ConcurrentHashMap.newKeySet();
    volatile boolean requireRegistration;
    volatile boolean silent;

    Scripted(Map<String, StatusCode> refusals) {
      this.refusals = refusals;
    }

    @Override
    public void handle(TransportChannel channel, RequestMessage request) {
      String name = request.getClass().getSimpleName();
      received.add(name);
      if (request instanceof GetAssignmentRequest assignment) {
        assignments.add(assignment);
      }
      ReferenceCountUtil.release(request);
      if (silent) {
        return;
      }
      StatusCode refusal = refusals.get(name);
      if (refusal != null) {
        channel.respond(StatusResponse.error(request.requestId(), refusal, "scripted"));
      } else if (request instanceof RegisterApplicationRequest register) {
        registered.add(register.appId());
        channel.respond(StatusResponse.ok(request.requestId()));
      } else if (requireRegistration && registered.isEmpty()) {
        channel.respond(
            StatusResponse.error(request.requestId(), StatusCode.UNKNOWN_APPLICATION, "who?"));
      } else if (request instanceof GetAssignmentRequest) {
        // The layout of coordinators before protocol 6, which clients still accept.
        channel.respond(
            AssignmentResponse.ok(
                request.requestId(),
                List.of(new ServerAddress("s1", "host-1", 19999)),
                PartitionChains.ofChains(new int[][] {{0}, {0}})));
      } else {
        channel.respond(StatusResponse.ok(request.requestId()));
      }
    }
  }
}
