package io.sluice.server.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Units (bytes, entries) reserved against a capacity. A reservation that would pass it is refused,
 * except when nothing is reserved: one request larger than the capacity then goes alone, so that
 * none waits for ever (its own limit, a frame's size, bounds it).
 */
public final class Budget {
  private final long capacity;
  private final AtomicLong used = new AtomicLong();

  public Budget(long capacity) {
    this.capacity = capacity;
  }

  /** Reserves {@code units}; false when that would pass the capacity. */
  public boolean tryReserve(long units) {
    while (true) {
      long current = used.get();
      if (current + units > capacity && current > 0) {
        return false;
      }
      if (used.compareAndSet(current, current + units)) {
        return true;
      }
    }
  }

  /**
   * Reserves {@code units} only if no more than {@code limit} (at most the capacity) is then
   * reserved, even when nothing is: for what has another way to go than to wait.
   */
  public boolean tryReserveWithin(long units, long limit) {
    while (true) {
      long current = used.get();
      if (current + units > Math.min(limit, capacity)) {
        return false;
      }
      if (used.compareAndSet(current, current + units)) {
        return true;
      }
    }
  }

  public void release(long units) {
    used.addAndGet(-units);
  }

  public long used() {
    return used.get();
  }

  public long capacity() {
    return capacity;
  }
}
