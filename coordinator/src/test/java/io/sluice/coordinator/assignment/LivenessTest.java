package io.sluice.coordinator.assignment;

import static io.sluice.coordinator.TestServers.FAILED_DISK;
import static io.sluice.coordinator.TestServers.GIB;
import static io.sluice.coordinator.TestServers.HEALTHY_DISK;
import static io.sluice.coordinator.TestServers.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.coordinator.RequestRefusedException;
import io.sluice.coordinator.TestServers;
import io.sluice.coordinator.exclusion.ExclusionReason;
import io.sluice.coordinator.registry.ServerCondition;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LivenessTest {
  private final AssignerFixture f = new AssignerFixture(100);

  @Test
  void aServerThatStopsHeartBeatingGetsNothingOnceTheTimeoutPasses() {
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)));

    f.clock.advance(AssignerFixture.TIMEOUT.minusSeconds(1));
    f.heartbeat(status("b", "h2", GIB));
    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)), "a is still within the timeout");

    f.clock.advance(Duration.ofSeconds(1));
    // Not swept yet: the assigner itself sees that a turned stale.
    assertEquals(
        ServerCondition.STALE, f.registry.condition(f.registry.get("a"), f.clock.millis()));
    assertEquals(Set.of("b"), used(f.assign(10, 1)));

    assertEquals(List.of("a"), f.registry.expireStale().stream().map(r -> r.id()).toList());
    assertEquals(1, f.registry.size());
    assertEquals(Set.of("b"), used(f.assign(10, 1)));
  }

  @Test
  void aServerComesBackWithItsNextHeartbeat() {
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    f.clock.advance(AssignerFixture.TIMEOUT);
    f.heartbeat(status("b", "h2", GIB));
    f.registry.expireStale();
    assertEquals(Set.of("b"), used(f.assign(10, 1)));

    f.heartbeat(status("a", "h1", GIB));

    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)));
  }

  @Test
  void whenEveryServerIsStaleTheAnswerIsNotEnoughServers() {
    f.heartbeat(status("a", "h1", GIB));
    f.clock.advance(AssignerFixture.TIMEOUT);

    RequestRefusedException e = assertThrows(RequestRefusedException.class, () -> f.assign(10, 1));

    assertEquals(StatusCode.NOT_ENOUGH_SERVERS, e.status());
    assertTrue(e.getMessage().contains("1 stale"), e.getMessage());
  }

  @Test
  void aDecommissioningServerGetsNothingNew() {
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    f.assign(10, 1);

    f.heartbeat(
        TestServers.builder("a", "h1").free(GIB).state(ServerState.DECOMMISSIONING).build());

    assertEquals(Set.of("b"), used(f.assign(10, 1)));
    assertEquals(
        ServerCondition.DECOMMISSIONING,
        f.registry.condition(f.registry.get("a"), f.clock.millis()));
  }

  @Test
  void anUnhealthyServerGetsNothingNew() {
    f.heartbeat(
        TestServers.builder("a", "h1").free(GIB).state(ServerState.UNHEALTHY).build(),
        status("b", "h2", GIB));

    assertEquals(Set.of("b"), used(f.assign(10, 1)));
  }

  @Test
  void aServerWithoutAHealthyDiskGetsNothingNewButOneHealthyDiskIsEnough() {
    f.heartbeat(
        TestServers.builder("a", "h1").free(GIB).disks(FAILED_DISK).build(),
        TestServers.builder("b", "h2").free(GIB).disks(HEALTHY_DISK, FAILED_DISK).build());

    assertEquals(Set.of("b"), used(f.assign(10, 1)));
    assertEquals(
        ServerCondition.UNHEALTHY, f.registry.condition(f.registry.get("a"), f.clock.millis()));

    f.heartbeat(TestServers.builder("a", "h1").free(GIB).disks(HEALTHY_DISK).build());
    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)));
  }

  @Test
  void anExcludedServerGetsNothingUntilIncluded() {
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));

    f.exclusions.exclude("a");
    assertEquals(Set.of("b"), used(f.assign(10, 1)));

    f.exclusions.include("a");
    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)));
  }

  @Test
  void anAdminDecommissionLastsUntilTheServerLeaves() {
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    f.exclusions.decommission("a");
    assertEquals(Set.of("b"), used(f.assign(10, 1)));

    // a keeps heart-beating while it drains: still nothing new.
    f.clock.advance(Duration.ofSeconds(20));
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    assertEquals(Set.of("b"), used(f.assign(10, 1)));

    // a stops, is dropped, and comes back later as a fresh server.
    f.clock.advance(AssignerFixture.TIMEOUT);
    f.heartbeat(status("b", "h2", GIB));
    f.registry.expireStale();
    assertEquals(null, f.exclusions.reasonFor("a"));
    f.heartbeat(status("a", "h1", GIB));
    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)));
  }

  @Test
  void theExclusionFileOutlastsAnAdminInclude() {
    f.heartbeat(status("a", "h1", GIB), status("b", "h2", GIB));
    f.exclusions.replaceFileEntries(Set.of("a"));

    assertEquals(ExclusionReason.FILE, f.exclusions.include("a"));
    assertEquals(Set.of("b"), used(f.assign(10, 1)));

    f.exclusions.replaceFileEntries(Set.of());
    assertEquals(Set.of("a", "b"), used(f.assign(10, 1)));
  }

  @Test
  void tooFewServersForTheCopiesIsAClearError() {
    f.heartbeat(
        status("a", "h1", GIB),
        status("b", "h2", GIB),
        TestServers.builder("c", "h3").free(GIB).state(ServerState.DECOMMISSIONING).build());

    RequestRefusedException e = assertThrows(RequestRefusedException.class, () -> f.assign(10, 3));

    assertEquals(StatusCode.NOT_ENOUGH_SERVERS, e.status());
    assertTrue(
        e.getMessage().contains("3 copies of each partition need 3 servers, but only 2"),
        e.getMessage());
    assertTrue(e.getMessage().contains("1 decommissioning"), e.getMessage());
  }

  @Test
  void noServerWithTheTagsIsAClearError() {
    f.heartbeat(TestServers.builder("a", "h1").free(GIB).tags("hdd").build());

    RequestRefusedException e =
        assertThrows(
            RequestRefusedException.class,
            () -> f.assigner.assign(10, 1, List.of("ssd"), Set.of()));

    assertEquals(StatusCode.NOT_ENOUGH_SERVERS, e.status());
    assertTrue(e.getMessage().contains("with tags [ssd]"), e.getMessage());
  }

  @Test
  void anEmptyRegistryIsNotEnoughServers() {
    RequestRefusedException e = assertThrows(RequestRefusedException.class, () -> f.assign(1, 1));

    assertEquals(StatusCode.NOT_ENOUGH_SERVERS, e.status());
    assertTrue(e.getMessage().startsWith("no server can take new work"), e.getMessage());
  }

  private static Set<String> used(Assignment assignment) {
    Set<String> ids = new HashSet<>();
    for (ServerAddress server : assignment.servers()) {
      ids.add(server.serverId());
    }
    return ids;
  }
}
