package io.sluice.server.memory;

/**
 * Bytes of in-memory data being sent to readers, bounded by {@code read.buffer.capacity}. Data read
 * from disk travels with sendfile and holds no memory; a memory read holds its blocks until the
 * response is written, and so does a read of the HDFS tier the buffer it reads into. Either is
 * refused with the retriable BUSY status when this budget is spent.
 */
public final class ReadBudget {
  private final Budget bytes;

  public ReadBudget(long capacity) {
    this.bytes = new Budget(capacity);
  }

  /** Reserves {@code bytes}; false when that would pass the capacity (see {@link Budget}). */
  public boolean tryReserve(long bytes) {
    return this.bytes.tryReserve(bytes);
  }

  public void release(long bytes) {
    this.bytes.release(bytes);
  }

  public long usedBytes() {
    return bytes.used();
  }

  public long capacity() {
    return bytes.capacity();
  }
}
