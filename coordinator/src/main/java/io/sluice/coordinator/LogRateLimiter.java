package io.sluice.coordinator;

import java.util.concurrent.atomic.AtomicLong;

/** Lets one log line through per interval, so that a peer repeating a mistake cannot flood the log. */
final class LogRateLimiter {
  private final long intervalNanos;
  private final AtomicLong nextAllowedNanos;

  LogRateLimiter(long intervalMillis) {
    this.intervalNanos = intervalMillis * 1_000_000L;
    this.nextAllowedNanos = new AtomicLong(System.nanoTime());
  }

  /** True when a line may be logged now. */
  boolean tryAcquire() {
    long now = System.nanoTime();
    long next = nextAllowedNanos.get();
    return now - next >= 0 && nextAllowedNanos.compareAndSet(next, now + intervalNanos);
  }
}
