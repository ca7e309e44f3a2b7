package io.sluice.coordinator.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.coordinator.ManualClock;
import io.sluice.coordinator.RequestRefusedException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApplicationRegistryTest {
  private final ManualClock clock = new ManualClock(0);
  private final ApplicationRegistry apps = new ApplicationRegistry(clock, Duration.ofMinutes(2), 2);

  @Test
  void heartbeatsKeepAnApplicationAliveAndSilenceExpiresIt() {
    apps.register("app-1", "alice");
    clock.advance(Duration.ofSeconds(100));
    apps.heartbeat("app-1");
    clock.advance(Duration.ofSeconds(100));
    assertEquals(List.of(), apps.expire());
    assertTrue(apps.isRegistered("app-1"));

    clock.advance(Duration.ofSeconds(20));

    assertEquals(List.of("app-1"), apps.expire());
    assertFalse(apps.isRegistered("app-1"));
    assertEquals(Map.of(), apps.countsByUser());
  }

  @Test
  void anUnknownOrExpiredApplicationIsAnError() {
    RequestRefusedException unknown =
        assertThrows(RequestRefusedException.class, () -> apps.heartbeat("nobody"));
    assertEquals(StatusCode.UNKNOWN_APPLICATION, unknown.status());

    apps.register("app-1", "alice");
    clock.advance(Duration.ofMinutes(2));
    // Expired but not swept yet: unknown all the same.
    assertEquals(
        StatusCode.UNKNOWN_APPLICATION,
        assertThrows(RequestRefusedException.class, () -> apps.heartbeat("app-1")).status());
    assertEquals(0, apps.size());
  }

  @Test
  void aUserMayHaveNoMoreThanTheLimit() {
    apps.register("a1", "alice");
    apps.register("a2", "alice");
    apps.register("b1", "bob");

    RequestRefusedException e =
        assertThrows(RequestRefusedException.class, () -> apps.register("a3", "alice"));

    assertEquals(StatusCode.REFUSED, e.status());
    assertTrue(e.getMessage().contains("coordinator.max.apps.per.user"), e.getMessage());
    assertEquals(Map.of("alice", 2, "bob", 1), apps.countsByUser());

    assertTrue(apps.unregister("a1"));
    apps.register("a3", "alice");
    assertEquals(Map.of("alice", 2, "bob", 1), apps.countsByUser());
  }

  @Test
  void registeringAgainIsHarmlessButNotUnderAnotherUser() {
    apps.register("a1", "alice");
    apps.register("a1", "alice");
    assertEquals(Map.of("alice", 1), apps.countsByUser());

    RequestRefusedException e =
        assertThrows(RequestRefusedException.class, () -> apps.register("a1", "mallory"));
    assertEquals(StatusCode.INVALID_REQUEST, e.status());
  }

  @Test
  void emptyIdsAreInvalidAndUnregisteringTwiceIsHarmless() {
    assertEquals(
        StatusCode.INVALID_REQUEST,
        assertThrows(RequestRefusedException.class, () -> apps.register("", "alice")).status());
    assertEquals(
        StatusCode.INVALID_REQUEST,
        assertThrows(RequestRefusedException.class, () -> apps.register("a1", "")).status());

    apps.register("a1", "alice");
    assertTrue(apps.unregister("a1"));
    assertFalse(apps.unregister("a1"));
  }

  @Test
  void zeroMeansNoLimit() {
    ApplicationRegistry unlimited = new ApplicationRegistry(clock, Duration.ofMinutes(2), 0);
    for (int i = 0; i < 100; i++) {
      unlimited.register("app-" + i, "alice");
    }
    assertEquals(100, unlimited.size());
  }
}
