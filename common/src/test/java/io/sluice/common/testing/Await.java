package io.sluice.common.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for a condition in a test, never for a fixed time: polls until the condition holds and
 * fails, saying what it waited for, after a timeout generous enough for a loaded machine.
 */
public final class Await {
  /** How long a condition may take unless a test says otherwise. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(90);

  private static final long POLL_MILLIS = 10;

  private Await() {}

  /** Waits until {@code condition} holds, at most {@link #DEFAULT_TIMEOUT}. */
  public static void until(BooleanSupplier condition, String what) throws InterruptedException {
    until(condition, DEFAULT_TIMEOUT, () -> what);
  }

  /**
   * As {@link #until(BooleanSupplier, String)}; {@code state} describes, when the wait fails, what
   * was seen instead.
   */
  public static void until(BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    until(condition, DEFAULT_TIMEOUT, state);
  }

  /** Waits until {@code condition} holds, at most {@code timeout}. */
  public static void until(BooleanSupplier condition, Duration timeout, Supplier<String> state)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + state.get());
      }
      Thread.sleep(POLL_MILLIS);
    }
  }
}
