package io.sluice.coordinator.assignment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PendingLoadTest {
  private final PendingLoad pending = new PendingLoad(60_000);
  private final Map<String, Long> dropped = new HashMap<>();

  @Test
  void reportsConsumeTheOldestPartitionsFirstAndExpiryTheRest() {
    pending.add("s1", 100, 0, 10);
    pending.add("s1", 100, 5_000, 20);
    assertEquals(30, pending.of("s1"));

    // The server reports 15 more partitions: the first batch and half the second are not pending.
    pending.reported("s1", 115);
    assertEquals(15, pending.of("s1"));

    pending.expire(60_000, (id, n) -> dropped.merge(id, n, Long::sum));
    assertEquals(15, pending.of("s1"), "the consumed first batch expires without effect");
    assertEquals(Map.of(), dropped);

    pending.expire(65_000, (id, n) -> dropped.merge(id, n, Long::sum));
    assertEquals(0, pending.of("s1"));
    assertEquals(Map.of("s1", 15L), dropped);
    assertEquals(Map.of(), pending.totals());
  }

  @Test
  void assignmentsWithinOneSecondShareABatch() {
    for (int i = 0; i < 1000; i++) {
      pending.add("s1", 0, 2_000 + i % 1000, 1);
    }
    pending.add("s1", 0, 3_000, 5);

    pending.expire(62_999, (id, n) -> dropped.merge(id, n, Long::sum));
    assertEquals(Map.of("s1", 1000L), dropped);
    assertEquals(5, pending.of("s1"));
  }

  @Test
  void shrinkingReportsConsumeNothing() {
    pending.add("s1", 100, 0, 10);

    pending.reported("s1", 40);
    assertEquals(10, pending.of("s1"));
    pending.reported("s1", 45);
    assertEquals(5, pending.of("s1"));
  }
}
