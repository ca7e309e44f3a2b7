package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReceiveBudgetTest {
  private final List<String> grants = new ArrayList<>();

  private ReceiveBudget.Waiter waiter(String name) {
    return () -> grants.add(name);
  }

  @Test
  void reservesWhatFitsAndQueuesTheRest() {
    ReceiveBudget budget = new ReceiveBudget(100);
    assertTrue(budget.reserveOrQueue(60, waiter("a")));
    assertFalse(budget.reserveOrQueue(50, waiter("b")));
    assertEquals(60, budget.reservedBytes());
    assertEquals(1, budget.queuedCount());

    budget.release(60);
    assertEquals(List.of("b"), grants, "granted once the bytes fit");
    assertEquals(50, budget.reservedBytes(), "reserved on the waiter's behalf");
    assertEquals(0, budget.queuedCount());
  }

  @Test
  void aFrameThatFitsPassesAnOlderOneThatDoesNot() {
    ReceiveBudget budget = new ReceiveBudget(100);
    assertTrue(budget.reserveOrQueue(90, waiter("a")));
    assertFalse(budget.reserveOrQueue(80, waiter("big")));
    assertTrue(budget.reserveOrQueue(5, waiter("small")), "fits, and the big frame is patient");

    budget.release(90);
    budget.release(5);
    assertEquals(List.of("big"), grants);
    assertEquals(80, budget.reservedBytes());
    assertEquals(95, budget.peakReservedBytes());
  }

  @Test
  void framesStopPassingOnceTheOldestWaitedASecondAndFramesThatPassedKeepItOut() {
    long[] now = {0};
    ReceiveBudget budget = new ReceiveBudget(100, 100, () -> now[0]);
    assertTrue(budget.reserveOrQueue(30, waiter("held")));
    assertFalse(budget.reserveOrQueue(80, waiter("big")));
    assertTrue(budget.reserveOrQueue(40, waiter("p1")), "passes while the big frame is patient");
    assertTrue(budget.reserveOrQueue(25, waiter("p2")));
    budget.release(30);
    assertEquals(List.of(), grants, "65 + 80 does not fit");

    now[0] += ReceiveBudget.PATIENCE_NANOS;
    assertFalse(
        budget.reserveOrQueue(5, waiter("late")),
        "the frames that passed are what keeps the big one out: none passes it now");
    budget.release(40);
    assertEquals(List.of(), grants, "25 + 80 does not fit yet, and nothing passes");
    budget.release(25);
    assertEquals(List.of("big", "late"), grants, "the oldest first, then what fits behind it");
    assertEquals(85, budget.reservedBytes());
  }

  @Test
  void framesThatHeldTheBudgetBeforeStopNobodyFromPassing() {
    long[] now = {0};
    ReceiveBudget budget = new ReceiveBudget(128, 64, () -> now[0]);
    for (int i = 0; i < 6; i++) {
      assertTrue(budget.reserveOrQueue(16, waiter("stalled-" + i)));
    }
    assertFalse(budget.reserveOrQueue(20, waiter("big")), "96 + 20 leaves no 20 free");
    now[0] += 60 * ReceiveBudget.PATIENCE_NANOS;
    assertTrue(
        budget.reserveOrQueue(2, waiter("small")),
        "the stalled frames, not the ones that passed, keep the big one out");
    assertEquals(List.of(), grants);
  }

  @Test
  void cancellingTheOldestGrantsTheFramesBehindItThatFit() {
    long[] now = {0};
    ReceiveBudget budget = new ReceiveBudget(100, 100, () -> now[0]);
    assertTrue(budget.reserveOrQueue(30, waiter("held")));
    ReceiveBudget.Waiter big = waiter("big");
    assertFalse(budget.reserveOrQueue(80, big));
    assertTrue(budget.reserveOrQueue(40, waiter("passer")));
    budget.release(30);
    now[0] += ReceiveBudget.PATIENCE_NANOS;
    assertFalse(budget.reserveOrQueue(20, waiter("behind")), "the passer keeps the big one out");
    assertTrue(budget.cancel(big), "the big frame's connection closed");
    assertEquals(List.of("behind"), grants, "granted at once, not at the next release");
    assertEquals(60, budget.reservedBytes());
  }

  @Test
  void framesHeldOutByLargerOnesArePassedHoweverLongTheyWaited() {
    long[] now = {0};
    ReceiveBudget budget = new ReceiveBudget(128, 64, () -> now[0]);
    assertTrue(budget.reserveOrQueue(64, waiter("stalled")));
    assertFalse(
        budget.reserveOrQueue(64, waiter("big")), "the largest frame needs an empty budget");
    now[0] += 60 * ReceiveBudget.PATIENCE_NANOS;
    assertTrue(
        budget.reserveOrQueue(16, waiter("small")),
        "the stalled frame, not the small ones, keeps the big one out");
    budget.release(16);
    budget.release(64);
    assertEquals(List.of("big"), grants);
  }

  @Test
  void framesKeepRoomForOnesOfHalfTheirSize() {
    ReceiveBudget budget = new ReceiveBudget(128, 64);
    int granted = 0;
    while (budget.reserveOrQueue(16, waiter("stalled-" + granted))) {
      granted++;
    }
    assertEquals(7, granted, "each 16-byte frame leaves 16 free behind it");
    assertTrue(budget.reserveOrQueue(8, waiter("half")), "room for a frame of half their size");
    assertEquals(120, budget.reservedBytes());
    assertEquals(List.of(), grants);
  }

  @Test
  void aCancelledWaiterIsNeverGranted() {
    ReceiveBudget budget = new ReceiveBudget(10);
    ReceiveBudget.Waiter w = waiter("w");
    assertTrue(budget.reserveOrQueue(10, waiter("a")));
    assertFalse(budget.reserveOrQueue(10, w));
    assertTrue(budget.cancel(w));
    budget.release(10);
    assertEquals(List.of(), grants);
    assertEquals(0, budget.reservedBytes());
    assertFalse(budget.cancel(w), "cancelling twice finds nothing");
  }

  @Test
  void cancelAfterTheGrantTellsTheCallerItOwnsTheBytes() {
    ReceiveBudget budget = new ReceiveBudget(10);
    ReceiveBudget.Waiter w = waiter("w");
    assertTrue(budget.reserveOrQueue(10, waiter("a")));
    assertFalse(budget.reserveOrQueue(4, w));
    budget.release(10);
    assertFalse(budget.cancel(w));
    assertEquals(4, budget.reservedBytes());
  }

  @Test
  void requestsBeyondTheCapacityAndOverReleasesAreBugs() {
    ReceiveBudget budget = new ReceiveBudget(10);
    assertThrows(IllegalArgumentException.class, () -> budget.reserveOrQueue(11, waiter("x")));
    assertThrows(IllegalStateException.class, () -> budget.release(1));
    assertThrows(IllegalArgumentException.class, () -> new ReceiveBudget(10, 11));
  }
}
