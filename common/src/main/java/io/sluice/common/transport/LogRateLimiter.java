package io.sluice.common.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one log line through per interval, so that a peer repeating a mistake cannot flood the log.
 */
public final class LogRateLimiter {
  private final long intervalNanos;
  private final AtomicLong nextAllowedNanos;

  public LogRateLimiter(long intervalMillis) {
    this.intervalNanos = intervalMillis * 1_000_000L;
    this.nextAllowedNanos = new AtomicLong(System.nanoTime());
  }

  /** True when a line may be logged now. */
  public boolean tryAcquire() {
    long now = System.nanoTime();
    long next = nextAllowedNanos.get();
    return now - next >= 0 && nextAllowedNanos.compareAndSet(next, now + intervalNanos);
  }
}
