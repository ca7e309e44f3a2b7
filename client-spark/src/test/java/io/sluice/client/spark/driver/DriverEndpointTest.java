package io.sluice.client.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.client.spark.ShuffleLocations;
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
import io.sluice.common.protocol.message.GetLocationsRequest;
import io.sluice.common.protocol.message.LocationsResponse;
import io.sluice.common.protocol.message.RelocateRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's port for executors, spoken to over a real connection: relocations answered with the
 * new locations and recorded in the shuffle's book, every location of a partition for readers, a
 * shuffle Spark removed and runs again revived, other applications' and unknown shuffles refused,
 * and a relocation the coordinator cannot serve answered with its status instead of a hang.
 */
class DriverEndpointTest {
  private static final String APP = "app-endpoint";
  private static final int SHUFFLE = 2;

  private final List<TransportServer> servers = new ArrayList<>();
  private TransportContext context;
  private TransportClientFactory clients;
  private CoordinatorClient coordinator;
  private ExecutorService relocations;
  private ShuffleBook book;
  private ShuffleBooks books;

  /** Stands for Spark's ShuffleDependency, held as long as the test runs. */
  private final Object dependency = new Object();

  private ServerAddress first;
  private ServerAddress second;
  private volatile boolean coordinatorHasServers = true;
  private TransportClient executor;

  @BeforeEach
  void start() throws Exception {
    context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "driver", PooledByteBufAllocator.DEFAULT);
    clients = context.createClientFactory();
    first = server("first");
    second = server("second");
    TransportServer c = context.createServer("127.0.0.1", 0, this::assign);
    servers.add(c);
    coordinator =
        new CoordinatorClient(
            clients, List.of(new CoordinatorAddress("127.0.0.1", c.port())), Duration.ofSeconds(5));
    Relocator relocator =
        new Relocator(
            APP,
            coordinator,
            new ServerRegistrar(clients, APP, "tester", Duration.ofSeconds(5)),
            1,
            List.of(),
            Duration.ofSeconds(5),
            System::nanoTime,
            move -> {});
    book =
        new ShuffleBook(
            SHUFFLE,
            ShuffleLocations.of(
                AssignmentRunsResponse.ok(
                    1,
                    List.of(first),
                    PartitionChains.ofChains(new int[][] {{0}, {0}, {0}, {0}}))));
    books = new ShuffleBooks(relocator);
    books.add(book, dependency);
    relocations = Executors.newSingleThreadExecutor();
    TransportServer endpoint =
        context.createServer("127.0.0.1", 0, new DriverEndpoint(APP, books, relocations));
    servers.add(endpoint);
    executor = clients.createUnpooledClient("127.0.0.1", endpoint.port());
  }

  @AfterEach
  void stop() throws Exception {
    executor.close();
    relocations.shutdownNow();
    relocations.awaitTermination(10, TimeUnit.SECONDS);
    coordinator.close();
    clients.close();
    servers.forEach(TransportServer::close);
  }

  @Test
  void aRelocationIsAnsweredWithTheNewLocationsAndKeptForReaders() throws Exception {
    LocationsResponse moved =
        executor
            .request(
                new RelocateRequest(
                    TransportClient.nextRequestId(),
                    APP,
                    SHUFFLE,
                    new int[] {1, 3},
                    new int[] {0, 0},
                    "first",
                    "connection refused"),
                LocationsResponse.class)
            .get(30, TimeUnit.SECONDS);

    PartitionLocation next = new PartitionLocation(1, List.of(second));
    assertEquals(
        List.of(new LocationsResponse.Entry(1, next), new LocationsResponse.Entry(3, next)),
        sorted(moved.entries()));
    assertEquals(next, book.current(1));

    LocationsResponse all =
        executor
            .request(
                new GetLocationsRequest(TransportClient.nextRequestId(), APP, SHUFFLE, 0, 4),
                LocationsResponse.class)
            .get(30, TimeUnit.SECONDS);
    PartitionLocation initial = new PartitionLocation(0, List.of(first));
    assertEquals(
        List.of(
            new LocationsResponse.Entry(1, initial),
            new LocationsResponse.Entry(1, next),
            new LocationsResponse.Entry(3, initial),
            new LocationsResponse.Entry(3, next)),
        sorted(all.entries()),
        "only moved partitions are listed, every location oldest first");
  }

  @Test
  void anotherApplicationsOrAnUnknownShuffleIsRefused() {
    for (RequestMessage request :
        List.of(
            new GetLocationsRequest(TransportClient.nextRequestId(), "app-other", SHUFFLE, 0, 4),
            new GetLocationsRequest(TransportClient.nextRequestId(), APP, SHUFFLE + 1, 0, 4),
            new RelocateRequest(
                TransportClient.nextRequestId(),
                "app-other",
                SHUFFLE,
                new int[] {0},
                new int[] {0},
                "first",
                "refused"))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> executor.request(request, LocationsResponse.class).get(30, TimeUnit.SECONDS));
      RemoteException refused = assertInstanceOf(RemoteException.class, e.getCause());
      assertEquals(StatusCode.UNKNOWN_SHUFFLE, refused.status(), request.toString());
    }
    assertEquals(new PartitionLocation(0, List.of(first)), book.current(0), "nothing moved");
  }

  /**
   * Spark removed the shuffle's data but holds its dependency, and runs it again (Spark 4.1's SQL
   * cleanup): the first request revives it, every partition moved to newly registered servers one
   * epoch later, so that writers naming the old epoch and readers get the new locations.
   */
  @Test
  void aShuffleSparkRemovedAndUsesAgainIsRevivedOnNewServers() throws Exception {
    assertEquals(book, books.remove(SHUFFLE));

    LocationsResponse relocated =
        executor
            .request(
                new RelocateRequest(
                    TransportClient.nextRequestId(),
                    APP,
                    SHUFFLE,
                    new int[] {2},
                    new int[] {0},
                    "first",
                    "UNKNOWN_SHUFFLE"),
                LocationsResponse.class)
            .get(30, TimeUnit.SECONDS);

    PartitionLocation next = new PartitionLocation(1, List.of(second));
    assertEquals(List.of(new LocationsResponse.Entry(2, next)), relocated.entries());
    LocationsResponse all =
        executor
            .request(
                new GetLocationsRequest(TransportClient.nextRequestId(), APP, SHUFFLE, 0, 4),
                LocationsResponse.class)
            .get(30, TimeUnit.SECONDS);
    assertEquals(8, all.entries().size(), "every partition moved: " + all.entries());
    for (int p = 0; p < 4; p++) {
      assertEquals(next, book.current(p), "partition " + p);
    }
    assertEquals(book, books.live(SHUFFLE), "live again");
  }

  @Test
  void aRelocationTheCoordinatorCannotServeIsAnsweredWithItsStatus() {
    coordinatorHasServers = false;

    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                executor
                    .request(
                        new RelocateRequest(
                            TransportClient.nextRequestId(),
                            APP,
                            SHUFFLE,
                            new int[] {0},
                            new int[] {0},
                            "first",
                            "refused"),
                        LocationsResponse.class)
                    .get(30, TimeUnit.SECONDS));

    RemoteException refused = assertInstanceOf(RemoteException.class, e.getCause());
    assertEquals(StatusCode.NOT_ENOUGH_SERVERS, refused.status());
    assertTrue(
        refused.getMessage().contains("no new location for shuffle " + SHUFFLE),
        refused.getMessage());
  }

  private static List<LocationsResponse.Entry> sorted(List<LocationsResponse.Entry> entries) {
    List<LocationsResponse.Entry> copy = new ArrayList<>(entries);
    copy.sort(
        (a, b) ->
            a.partitionId() != b.partitionId()
                ? Integer.compare(a.partitionId(), b.partitionId())
                : Integer.compare(a.location().epoch(), b.location().epoch()));
    return copy;
  }

  /** The coordinator: every partition on the second server, or none available. */
  private void assign(TransportChannel channel, RequestMessage request) {
    ReferenceCountUtil.release(request);
    if (!(request instanceof GetAssignmentRequest r)) {
      channel.respond(StatusResponse.ok(request.requestId()));
    } else if (!coordinatorHasServers) {
      channel.respond(
          StatusResponse.error(r.requestId(), StatusCode.NOT_ENOUGH_SERVERS, "no live server"));
    } else {
      int[][] partitions = new int[r.numPartitions()][];
      for (int i = 0; i < partitions.length; i++) {
        partitions[i] = new int[] {0};
      }
      channel.respond(
          AssignmentRunsResponse.ok(
              r.requestId(), List.of(second), PartitionChains.ofChains(partitions)));
    }
  }

  /** A shuffle server that takes every registration. */
  private ServerAddress server(String id) {
    TransportServer s =
        context.createServer(
            "127.0.0.1",
            0,
            (channel, request) -> {
              ReferenceCountUtil.release(request);
              channel.respond(StatusResponse.ok(request.requestId()));
            });
    servers.add(s);
    return new ServerAddress(id, "127.0.0.1", s.port());
  }
}
