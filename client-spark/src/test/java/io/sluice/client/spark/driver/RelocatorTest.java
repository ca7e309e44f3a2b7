package io.sluice.client.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.client.spark.ShuffleLocations;
import io.sluice.client.spark.SluiceRelocationEvent;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.coordinator.CoordinatorAddress;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's relocation against a scripted coordinator and shuffle servers on loopback sockets:
 * partitions move once per epoch however many writers report the same failure, and a server the
 * coordinator names that cannot be registered (it died a moment ago and the coordinator has not
 * noticed yet) is left out of a second assignment instead of failing the move.
 */
class RelocatorTest {
  private static final String APP = "app-relocate";
  private static final int SHUFFLE = 7;

  private final List<TransportServer> servers = new ArrayList<>();
  private final Map<String, RequestHandler> handlers = new HashMap<>();
  private TransportContext context;
  private TransportClientFactory clients;
  private CoordinatorClient coordinator;
  private ScriptedCoordinator assignments;
  private Relocator relocator;
  private ShuffleBook book;
  private final List<SluiceRelocationEvent> moves = new CopyOnWriteArrayList<>();
  private ServerAddress first;
  private ServerAddress live;
  private ServerAddress alsoLive;

  @BeforeEach
  void start() throws Exception {
    context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "driver", PooledByteBufAllocator.DEFAULT);
    clients = context.createClientFactory();
    first = server("first");
    live = server("live");
    alsoLive = server("also-live");
    assignments = new ScriptedCoordinator();
    TransportServer c = context.createServer("127.0.0.1", 0, assignments);
    servers.add(c);
    coordinator =
        new CoordinatorClient(
            clients, List.of(new CoordinatorAddress("127.0.0.1", c.port())), Duration.ofSeconds(5));
    ServerRegistrar registrar = new ServerRegistrar(clients, APP, "tester", Duration.ofSeconds(5));
    relocator =
        new Relocator(
            APP,
            coordinator,
            registrar,
            1,
            List.of(),
            Duration.ofSeconds(5),
            System::nanoTime,
            moves::add);
    book =
        new ShuffleBook(
            SHUFFLE,
            ShuffleLocations.of(
                AssignmentRunsResponse.ok(
                    1, List.of(first), PartitionChains.ofChains(new int[][] {{0}, {0}, {0}}))));
  }

  @AfterEach
  void stop() {
    coordinator.close();
    clients.close();
    servers.forEach(TransportServer::close);
  }

  @Test
  void aPartitionMovesOnceHoweverManyWritersReportTheSameEpoch() throws Exception {
    assignments.next(live);

    Map<Integer, PartitionLocation> moved =
        relocator.relocate(book, new int[] {0, 1}, new int[] {0, 0}, "first", "refused");
    // A second writer of the same epochs learns the new locations; nothing moves again.
    Map<Integer, PartitionLocation> again =
        relocator.relocate(book, new int[] {1, 0}, new int[] {0, 0}, "first", "refused");

    assertEquals(1, assignments.requests.size());
    for (int p : new int[] {0, 1}) {
      assertEquals(new PartitionLocation(1, List.of(live)), moved.get(p));
      assertEquals(moved.get(p), again.get(p));
      assertEquals(moved.get(p), book.current(p));
    }
    assertEquals(new PartitionLocation(0, List.of(first)), book.current(2), "not reported");
    // Readers get every location of a moved partition, oldest first; deletion reaches every server.
    assertEquals(
        Map.of(
            0,
            List.of(new PartitionLocation(0, List.of(first)), moved.get(0)),
            1,
            List.of(new PartitionLocation(0, List.of(first)), moved.get(1))),
        book.movedIn(0, 3));
    assertEquals(Map.of(), book.movedIn(2, 3));
    assertEquals(Set.of(first, live), book.allServers());
    assertEquals(List.of("first"), assignments.requests.get(0).excludedServerIds());
    assertEquals(List.of(SHUFFLE), registeredShuffles(live));
    assertEquals(
        List.of(new SluiceRelocationEvent(SHUFFLE, 2, List.of(live.toString()), "refused")),
        moves,
        "one move, posted for the Spark UI and the event log");
  }

  @Test
  void aServerThatCannotBeRegisteredIsLeftOutOfTheNextAssignment() throws Exception {
    ServerAddress dead = deadServer("dead");
    assignments.next(dead).next(alsoLive);

    Map<Integer, PartitionLocation> moved =
        relocator.relocate(book, new int[] {2}, new int[] {0}, "first", "refused");

    assertEquals(new PartitionLocation(1, List.of(alsoLive)), moved.get(2));
    assertEquals(2, assignments.requests.size());
    assertTrue(
        assignments.requests.get(1).excludedServerIds().containsAll(List.of("first", "dead")),
        assignments.requests.get(1).toString());
  }

  @Test
  void aMoveFailsWhenEveryAssignmentNamesServersThatCannotBeRegistered() throws Exception {
    ServerAddress dead = deadServer("dead");
    for (int i = 0; i < Relocator.MAX_ASSIGNMENT_ROUNDS; i++) {
      assignments.next(dead);
    }

    IOException e =
        assertThrows(
            IOException.class,
            () -> relocator.relocate(book, new int[] {0}, new int[] {0}, "first", "refused"));

    assertTrue(e.getMessage().contains("dead"), e.getMessage());
    assertEquals(Relocator.MAX_ASSIGNMENT_ROUNDS, assignments.requests.size());
    assertEquals(new PartitionLocation(0, List.of(first)), book.current(0), "nothing moved");
  }

  @Test
  void aServerThatFailedEarlierIsUsedAgainWhenLeavingItOutLeavesTooFew() throws Exception {
    assignments.next(live);
    relocator.relocate(book, new int[] {0}, new int[] {0}, "first", "draining");
    // "first" came back (restarted); now "live" drains, and "first" is the only other server.
    assignments.refuseWhileExcluding("first").next(first);

    Map<Integer, PartitionLocation> moved =
        relocator.relocate(book, new int[] {0}, new int[] {1}, "live", "draining");

    assertEquals(new PartitionLocation(2, List.of(first)), moved.get(0));
    assertEquals(3, assignments.requests.size());
    assertEquals(
        Set.of("first", "live"), Set.copyOf(assignments.requests.get(1).excludedServerIds()));
    assertEquals(
        List.of("live"),
        assignments.requests.get(2).excludedServerIds(),
        "the server that failed now stays out");
  }

  private List<Integer> registeredShuffles(ServerAddress server) {
    List<Integer> ids = new ArrayList<>();
    for (RequestMessage m : ((Recording) handlerOf(server)).received) {
      if (m instanceof RegisterShuffleRequest r) {
        ids.add(r.shuffleId());
      }
    }
    return ids;
  }

  private RequestHandler handlerOf(ServerAddress server) {
    return handlers.get(server.serverId());
  }

  /** A shuffle server that takes every registration. */
  private ServerAddress server(String id) {
    Recording handler = new Recording();
    TransportServer s = context.createServer("127.0.0.1", 0, handler);
    servers.add(s);
    handlers.put(id, handler);
    return new ServerAddress(id, "127.0.0.1", s.port());
  }

  /** An address on loopback where nobody listens (bound, then released). */
  private static ServerAddress deadServer(String id) throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return new ServerAddress(id, "127.0.0.1", socket.getLocalPort());
    }
  }

  /** Answers every request OK and keeps it. */
  private static final class Recording implements RequestHandler {
    final List<RequestMessage> received = new CopyOnWriteArrayList<>();

    @Override
    public void handle(TransportChannel channel, RequestMessage request) {
      received.add(request);
      ReferenceCountUtil.release(request);
      channel.respond(StatusResponse.ok(request.requestId()));
    }
  }

  /** Answers assignments with the scripted servers, one per request, every partition on it. */
  private static final class ScriptedCoordinator implements RequestHandler {
    final List<GetAssignmentRequest> requests = new CopyOnWriteArrayList<>();
    private final Deque<ServerAddress> script = new ArrayDeque<>();
    private String scarce;

    synchronized ScriptedCoordinator next(ServerAddress server) {
      script.add(server);
      return this;
    }

    /** Answers NOT_ENOUGH_SERVERS to requests that exclude {@code serverId}. */
    synchronized ScriptedCoordinator refuseWhileExcluding(String serverId) {
      scarce = serverId;
      return this;
    }

    @Override
    public synchronized void handle(TransportChannel channel, RequestMessage request) {
      ReferenceCountUtil.release(request);
      if (request instanceof GetAssignmentRequest r) {
        requests.add(r);
        if (scarce != null && r.excludedServerIds().contains(scarce)) {
          channel.respond(
              StatusResponse.error(
                  r.requestId(),
                  StatusCode.NOT_ENOUGH_SERVERS,
                  "too few servers without " + scarce));
          return;
        }
        int[][] partitions = new int[r.numPartitions()][];
        for (int i = 0; i < partitions.length; i++) {
          partitions[i] = new int[] {0};
        }
        channel.respond(
            AssignmentRunsResponse.ok(
                r.requestId(), List.of(script.poll()), PartitionChains.ofChains(partitions)));
      } else {
        channel.respond(StatusResponse.ok(request.requestId()));
      }
    }
  }
}
