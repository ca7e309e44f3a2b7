package io.sluice.common.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.transport.RemoteException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetriesTest {
  private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(1), Duration.ofMillis(2), 3);

  private static CompletableFuture<String> busy() {
    return CompletableFuture.failedFuture(new RemoteException(StatusCode.BUSY, "busy"));
  }

  @Test
  void aRetriableStatusIsRetriedUntilTheRetriesAreUsedUp() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger attempts = new AtomicInteger();
      AtomicInteger retries = new AtomicInteger();
      CompletableFuture<String> result =
          Retries.withRetries(
              () -> {
                attempts.incrementAndGet();
                return busy();
              },
              BACKOFF,
              timer,
              retries::incrementAndGet);

      ExecutionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> result.get(10, TimeUnit.SECONDS));
      assertInstanceOf(RemoteException.class, e.getCause());
      assertEquals(4, attempts.get(), "the first attempt and three retries");
      assertEquals(3, retries.get(), "each retry is told");
    } finally {
      timer.shutdownNow();
    }
  }

  /** A retry that its timer refuses (the client closing) fails the result instead of losing it. */
  @Test
  void aRetryTheTimerRefusesFailsTheResult() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    timer.shutdownNow();

    CompletableFuture<String> result = Retries.withRetries(RetriesTest::busy, BACKOFF, timer);

    assertTrue(result.isDone(), "nothing can complete the result later");
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> result.get(1, TimeUnit.SECONDS));
    assertTrue(
        e.getCause().getMessage().startsWith("the client closed before it could retry"),
        e.getCause().getMessage());
  }
}
