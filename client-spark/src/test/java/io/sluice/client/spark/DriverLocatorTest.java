package io.sluice.client.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.GetLocationsRequest;
import io.sluice.common.protocol.message.LocationsResponse;
import io.sluice.common.protocol.message.RelocateRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An executor's view of a shuffle's locations against a scripted driver on a loopback socket: the
 * handle's epoch-0 locations until the driver names newer ones, never an older one after a newer,
 * and every location a partition had for readers.
 */
class DriverLocatorTest {
  private static final String APP = "app-locator";
  private static final int SHUFFLE = 5;
  private static final ServerAddress A = new ServerAddress("a", "10.0.0.1", 19999);
  private static final ServerAddress B = new ServerAddress("b", "10.0.0.2", 19999);
  private static final ServerAddress C = new ServerAddress("c", "10.0.0.3", 19999);
  private static final PartitionLocation AT_A = new PartitionLocation(0, List.of(A));
  private static final PartitionLocation AT_B = new PartitionLocation(1, List.of(B));
  private static final PartitionLocation AT_C = new PartitionLocation(2, List.of(C));

  private final List<RequestMessage> received = new CopyOnWriteArrayList<>();
  private volatile List<LocationsResponse.Entry> answer = List.of();
  private volatile boolean refuse;
  private TransportClientFactory clients;
  private TransportServer driver;
  private DriverLocator locator;

  @BeforeEach
  void start() {
    TransportContext context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "executor", PooledByteBufAllocator.DEFAULT);
    clients = context.createClientFactory();
    driver = context.createServer("127.0.0.1", 0, this::answer);
    ShuffleLocations initial =
        ShuffleLocations.of(
            AssignmentRunsResponse.ok(
                1, List.of(A), PartitionChains.ofChains(new int[][] {{0}, {0}, {0}})));
    // The dependency stays on the driver's side of this test: the locator needs only ids and
    // addresses from the handle.
    locator =
        new DriverLocator(
            new SluiceShuffleHandle<>(
                SHUFFLE,
                null,
                APP,
                initial,
                "127.0.0.1",
                driver.port(),
                ApplicationAuth.NONE,
                null),
            clients);
  }

  @AfterEach
  void stop() {
    clients.close();
    driver.close();
  }

  @Test
  void theHandlesLocationsHoldUntilTheDriverNamesNewerOnes() throws Exception {
    assertEquals(AT_A, locator.location(1));
    answer = List.of(new LocationsResponse.Entry(1, AT_C));

    Map<Integer, PartitionLocation> moved =
        locator.relocate(new int[] {1}, new int[] {0}, "a", "refused").get(30, TimeUnit.SECONDS);

    assertEquals(Map.of(1, AT_C), moved);
    assertEquals(AT_C, locator.location(1));
    assertEquals(AT_A, locator.location(0), "other partitions keep their location");
    RelocateRequest sent = (RelocateRequest) received.get(0);
    assertEquals(APP, sent.appId());
    assertEquals(SHUFFLE, sent.shuffleId());
    assertEquals("a", sent.failedServerId());

    // A slower writer's answer naming an older epoch does not move the partition back.
    answer = List.of(new LocationsResponse.Entry(1, AT_B));
    Map<Integer, PartitionLocation> stale =
        locator.relocate(new int[] {1}, new int[] {0}, "a", "refused").get(30, TimeUnit.SECONDS);
    assertEquals(Map.of(1, AT_C), stale);
    assertEquals(AT_C, locator.location(1));
  }

  @Test
  void readersGetEveryLocationAndPartitionsThatNeverMovedGetTheirFirst() throws Exception {
    answer = List.of(new LocationsResponse.Entry(2, AT_A), new LocationsResponse.Entry(2, AT_B));

    Map<Integer, List<PartitionLocation>> all = locator.allLocations(new int[] {1, 2});

    assertEquals(Map.of(1, List.of(AT_A), 2, List.of(AT_A, AT_B)), all);
    assertEquals(AT_B, locator.location(2), "what the driver said is learnt");
    GetLocationsRequest sent = (GetLocationsRequest) received.get(0);
    assertEquals(1, sent.startPartition());
    assertEquals(3, sent.endPartition());
  }

  @Test
  void aDriverThatCannotAnswerFailsTheLookUpNamingIt() {
    refuse = true;

    IOException e = assertThrows(IOException.class, () -> locator.allLocations(new int[] {0, 2}));

    assertTrue(e.getMessage().contains("127.0.0.1:" + driver.port()), e.getMessage());
    assertTrue(e.getMessage().contains("shuffle " + SHUFFLE), e.getMessage());
  }

  private void answer(TransportChannel channel, RequestMessage request) {
    ReferenceCountUtil.release(request);
    received.add(request);
    if (refuse) {
      channel.respond(
          StatusResponse.error(
              request.requestId(), StatusCode.UNKNOWN_SHUFFLE, "not known to this driver"));
    } else {
      channel.respond(new LocationsResponse(request.requestId(), answer));
    }
  }
}
