package io.sluice.server.memory;

/**
 * Bytes of in-memory data being sent to readers, bounded by {@code read.buffer.capacity}. Data read
 * from disk through the page cache travels with sendfile and holds no memory; a memory read holds
 * its blocks until the response is written, and so does a read of the HDFS tier, or a direct read
 * of a local disk, the buffers it reads into. Memory and HDFS reads are refused with the retriable
 * BUSY status when this budget is spent; a direct read, which may go with sendfile instead, takes
 * at most half of it ({@link #tryReserveForDirectRead}), so that memory reads keep the rest.
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

  /**
   * Reserves {@code bytes} for a direct read of a local disk while direct reads would hold at most
   * half of the budget with the rest; false otherwise, and the data goes with sendfile.
   */
  public boolean tryReserveForDirectRead(long bytes) {
    return this.bytes.tryReserve(bytes, this.bytes.capacity() / 2);
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
