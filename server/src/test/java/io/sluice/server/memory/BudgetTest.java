package io.sluice.server.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BudgetTest {
  @Test
  void reservationsBeyondTheCapacityWaitUntilOthersAreReleased() {
    Budget budget = new Budget(1_000);
    assertTrue(budget.tryReserve(600));
    assertTrue(budget.tryReserve(400));
    assertFalse(budget.tryReserve(1), "full");
    budget.release(600);
    assertTrue(budget.tryReserve(600));
    assertFalse(budget.tryReserve(1));
    budget.release(600);
    budget.release(400);
    assertEquals(0, budget.used());
  }

  @Test
  void oneReservationLargerThanTheCapacityGoesAloneWhenNothingIsReserved() {
    Budget budget = new Budget(1_000);
    assertTrue(budget.tryReserve(5_000));
    assertFalse(budget.tryReserve(300));
    budget.release(5_000);
    assertTrue(budget.tryReserve(300));
  }

  @Test
  void aReservationWithinALimitLeavesTheRestToOthers() {
    Budget budget = new Budget(1_000);
    assertTrue(budget.tryReserve(400, 500));
    assertFalse(budget.tryReserve(200, 500), "past the limit");
    assertTrue(budget.tryReserve(600), "the rest is there for reservations without one");
    budget.release(400);
    budget.release(600);
    assertTrue(budget.tryReserve(900, 500), "alone when nothing is reserved");
    budget.release(900);
    ReadBudget reads = new ReadBudget(1_000);
    assertTrue(reads.tryReserve(300));
    assertTrue(reads.tryReserveForDirectRead(200));
    assertFalse(reads.tryReserveForDirectRead(1), "direct reads stop at half of read memory");
    assertTrue(reads.tryReserve(500));
  }
}
