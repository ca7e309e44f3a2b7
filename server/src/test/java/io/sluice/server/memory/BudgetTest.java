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
  void aReservationWithinALimitNeverPassesIt() {
    Budget budget = new Budget(1_000);
    assertTrue(budget.tryReserveWithin(400, 500));
    assertFalse(budget.tryReserveWithin(200, 500), "past the limit");
    assertTrue(budget.tryReserve(600), "the rest is there for reservations without one");
    budget.release(400);
    budget.release(600);
    assertFalse(budget.tryReserveWithin(900, 500), "not even alone");
    assertEquals(0, budget.used());
  }
}
