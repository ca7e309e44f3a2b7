package io.sluice.coordinator.assignment;

import static io.sluice.coordinator.TestServers.GIB;
import static io.sluice.coordinator.TestServers.status;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.ManualClock;
import io.sluice.coordinator.TestServers;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.registry.ServerRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Load figures reach assignments within the refresh interval; eligibility changes at once. */
class SnapshotRefreshTest {
  private final ManualClock clock = new ManualClock(0);
  private final ExclusionList exclusions = new ExclusionList();
  private final ServerRegistry registry =
      new ServerRegistry(clock, Duration.ofSeconds(30), exclusions);
  private final ShuffleAssigner assigner = new ShuffleAssigner(registry, 100, 1000, 0, 1000);

  @Test
  void newLoadFiguresWaitForTheRefreshInterval() {
    heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    assertEquals(Map.of("a", 50, "b", 50), primaries(100));

    registry.heartbeat(status("a", "h1", 3 * GIB));
    assertEquals(Map.of("a", 50, "b", 50), primaries(100), "within the interval: old figures");

    clock.advance(Duration.ofSeconds(1));
    assertEquals(Map.of("a", 75, "b", 25), primaries(100));
  }

  @Test
  void aBackgroundRefreshPicksUpNewFigures() {
    heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    primaries(10);
    registry.heartbeat(status("a", "h1", 3 * GIB));
    clock.advance(Duration.ofSeconds(1));

    assigner.refresh();
    registry.heartbeat(status("b", "h2", 3 * GIB));

    // The refreshed list is less than an interval old: b's newest figures are not in it yet.
    assertEquals(Map.of("a", 75, "b", 25), primaries(100));
  }

  @Test
  void stateChangesAndExclusionsApplyAtOnce() {
    heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    primaries(10);

    registry.heartbeat(
        TestServers.builder("a", "h1").free(GIB).state(ServerState.UNHEALTHY).build());
    assertEquals(Map.of("b", 10), primaries(10));

    exclusions.exclude("b");
    registry.heartbeat(status("a", "h1", GIB));
    assertEquals(Map.of("a", 10), primaries(10));
  }

  private void heartbeat(ServerStatus... statuses) {
    for (ServerStatus status : statuses) {
      registry.heartbeat(status);
    }
  }

  private Map<String, Integer> primaries(int partitions) {
    return AssignerFixture.primariesById(
        assigner.assign(partitions, 1, List.of(), java.util.Set.of()));
  }
}
