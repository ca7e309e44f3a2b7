package io.sluice.server.handler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class QueuedBookkeepingTest {
  @Test
  void entriesBeyondTheBoundWaitUntilQueuedOnesRan() {
    QueuedBookkeeping queue = new QueuedBookkeeping(1_000);
    assertTrue(queue.tryAdmit(600));
    assertTrue(queue.tryAdmit(400));
    assertFalse(queue.tryAdmit(1), "full");
    queue.release(600);
    assertTrue(queue.tryAdmit(600));
    assertFalse(queue.tryAdmit(1));
    queue.release(600);
    queue.release(400);
    assertEquals(0, queue.queuedEntries());
  }

  @Test
  void oneRequestLargerThanTheBoundGoesAloneWhenNothingWaits() {
    QueuedBookkeeping queue = new QueuedBookkeeping(1_000);
    assertTrue(queue.tryAdmit(5_000));
    assertFalse(queue.tryAdmit(300));
    queue.release(5_000);
    assertTrue(queue.tryAdmit(300));
  }
}
