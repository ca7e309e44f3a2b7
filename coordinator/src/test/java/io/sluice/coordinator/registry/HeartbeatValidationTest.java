package io.sluice.coordinator.registry;

import static io.sluice.coordinator.TestServers.GIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.ManualClock;
import io.sluice.coordinator.RequestRefusedException;
import io.sluice.coordinator.TestServers;
import io.sluice.coordinator.exclusion.ExclusionList;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HeartbeatValidationTest {
  private final ManualClock clock = new ManualClock(0);
  private final ServerRegistry registry =
      new ServerRegistry(clock, Duration.ofSeconds(30), new ExclusionList());

  static Stream<Arguments> garbage() {
    return Stream.of(
        bad("empty id", b -> TestServers.builder("", "h1")),
        bad("id with a space", b -> TestServers.builder("a b", "h1")),
        bad("id of 300 characters", b -> TestServers.builder("x".repeat(300), "h1")),
        bad("empty host", b -> TestServers.builder("good", "")),
        bad("host with a newline", b -> TestServers.builder("good", "h1\nevil")),
        bad("data port 0", b -> b.port(0)),
        bad("negative data port", b -> b.port(-5)),
        bad("data port 70000", b -> b.port(70_000)),
        bad("http port -2", b -> b.httpPort(-2)),
        bad("http port 65536", b -> b.httpPort(65_536)),
        bad("zero push capacity", b -> b.capacity(0).used(0)),
        bad("negative push capacity", b -> b.capacity(-GIB).used(0)),
        bad("negative push used", b -> b.used(-1)),
        bad("negative read capacity", b -> b.readBuffer(0, -1)),
        bad("negative read used", b -> b.readBuffer(-1, GIB)),
        bad("negative partitions", b -> b.partitionsHeld(-1)),
        bad("negative disk size", b -> b.disks(new DiskStatus("/d", -1, 0, true))),
        bad("negative disk use", b -> b.disks(new DiskStatus("/d", GIB, -1, true))),
        bad("empty tag", b -> b.tags("ssd", "")),
        bad("tag with a space", b -> b.tags("rack 1")));
  }

  private static Arguments bad(String what, UnaryOperator<TestServers.Builder> change) {
    return Arguments.of(what, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("garbage")
  void garbageIsRefusedAndLeavesTheRegistryAsItWas(
      String what, UnaryOperator<TestServers.Builder> change) {
    ServerStatus good = TestServers.builder("good", "h1").free(GIB).build();
    registry.heartbeat(good);
    long version = registry.version();
    ServerStatus garbage = change.apply(TestServers.builder("good", "h1").free(GIB)).build();

    RequestRefusedException e =
        assertThrows(RequestRefusedException.class, () -> registry.heartbeat(garbage));

    assertEquals(StatusCode.INVALID_REQUEST, e.status(), what);
    assertEquals(1, registry.size());
    assertSame(good, registry.get("good").status());
    assertEquals(version, registry.version());
  }

  @Test
  void anotherServerClaimingALiveIdIsRefused() {
    ServerStatus original = TestServers.builder("s1", "host-a").port(19999).build();
    registry.heartbeat(original);

    RequestRefusedException e =
        assertThrows(
            RequestRefusedException.class,
            () -> registry.heartbeat(TestServers.builder("s1", "host-b").port(19999).build()));

    assertEquals(StatusCode.INVALID_REQUEST, e.status());
    assertTrue(
        e.getMessage().contains("in use by the live server at host-a:19999"), e.getMessage());
    assertSame(original, registry.get("s1").status());
  }

  @Test
  void aServerMayMoveOnceItsOldAddressWentSilent() {
    registry.heartbeat(TestServers.builder("s1", "host-a").build());
    clock.advance(Duration.ofSeconds(30));

    registry.heartbeat(TestServers.builder("s1", "host-b").build());

    assertEquals("host-b", registry.get("s1").address().host());
  }

  @Test
  void usedMemoryAboveCapacityCountsAsFull() {
    // Not garbage: accounting may overshoot for a moment; the server is simply full.
    registry.heartbeat(TestServers.builder("s1", "h").capacity(GIB).used(2 * GIB).build());

    assertEquals(1, registry.size());
  }

  @Test
  void loadFiguresDoNotInvalidateCachedCandidates() {
    registry.heartbeat(TestServers.builder("s1", "h").free(GIB).build());
    long version = registry.version();

    registry.heartbeat(TestServers.builder("s1", "h").free(GIB / 2).partitionsHeld(10).build());
    assertEquals(version, registry.version());

    registry.heartbeat(TestServers.builder("s1", "h").free(GIB / 2).tags("ssd").build());
    assertTrue(registry.version() > version);
    assertEquals(List.of("ssd"), registry.get("s1").status().tags());
  }
}
