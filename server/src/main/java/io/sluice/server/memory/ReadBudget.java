package io.sluice.server.memory;

import java.time.Duration;

/**
 * Read memory, bounded by {@code read.buffer.capacity}: bytes being sent to readers from memory. A
 * memory read holds its blocks until the response is written, and so does a read of the HDFS tier
 * the buffer it reads into; either is refused with the retriable BUSY status when this budget is
 * spent. The buffers of direct reads of local disks ({@link #directReads}) are part of it, in use
 * or kept free for the next one, up to half of it; free ones give way to a reservation that finds
 * no room. Data read from disk through the page cache travels with sendfile and holds no memory.
 */
public final class ReadBudget {
  private final Budget bytes;
  private final ReadBuffers directReads;

  /** Without keeping direct reads' free buffers. */
  public ReadBudget(long capacity) {
    this(capacity, Duration.ZERO);
  }

  /**
   * @param keep how long a free buffer of direct reads stays mapped for the next one ({@code
   *     buffer.chunk.keep})
   */
  public ReadBudget(long capacity, Duration keep) {
    this.bytes = new Budget(capacity);
    this.directReads = new ReadBuffers(bytes, keep.toNanos(), System::nanoTime);
  }

  /** Reserves {@code bytes}; false when that would pass the capacity (see {@link Budget}). */
  public boolean tryReserve(long bytes) {
    if (this.bytes.tryReserve(bytes)) {
      return true;
    }
    directReads.freeUnused();
    return this.bytes.tryReserve(bytes);
  }

  public void release(long bytes) {
    this.bytes.release(bytes);
  }

  /** The buffers direct reads of local disks read into. */
  public ReadBuffers directReads() {
    return directReads;
  }

  /** Frees the free buffers of direct reads, and those in use as they come back. */
  public void close() {
    directReads.close();
  }

  public long usedBytes() {
    return bytes.used();
  }

  public long capacity() {
    return bytes.capacity();
  }
}
