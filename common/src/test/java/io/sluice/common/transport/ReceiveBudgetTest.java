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
  void grantsInArrivalOrderAndNoLaterRequestOvertakesAQueuedOne() {
    ReceiveBudget budget = new ReceiveBudget(100);
    assertTrue(budget.reserveOrQueue(90, waiter("a")));
    assertFalse(budget.reserveOrQueue(80, waiter("big")));
    assertFalse(budget.reserveOrQueue(5, waiter("small")),
        "a small frame that would fit waits behind the queued one, or big frames starve");

    budget.release(90);
    assertEquals(List.of("big", "small"), grants);
    assertEquals(85, budget.reservedBytes());
    assertEquals(90, budget.peakReservedBytes());
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
  }
}
