package io.sluice.server.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of in-memory data being sent to readers, bounded by {@code read.buffer.capacity}. Data read
 * from disk travels with sendfile and holds no memory; a memory read holds its blocks until the
 * response is written, and so does a read of the HDFS tier the buffer it reads into. Either is
 * refused with the retriable BUSY status when this budget is spent.
 */
public final class ReadBudget {
  private final long capacity;
  private final AtomicLong used = new AtomicLong();

  public ReadBudget(long capacity) {
    this.capacity = capacity;
  }

  /** Reserves {@code bytes}; false when that would pass the capacity. */
  public boolean tryReserve(long bytes) {
    while (true) {
      long current = used.get();
      if (current + bytes > capacity && current > 0) {
        return false;
      }
      if (used.compareAndSet(current, current + bytes)) {
        return true;
      }
    }
  }

  public void release(long bytes) {
    used.addAndGet(-bytes);
  }

  public long usedBytes() {
    return used.get();
  }

  public long capacity() {
    return capacity;
  }
}
