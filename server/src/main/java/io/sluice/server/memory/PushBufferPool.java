package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The off-heap pool that holds pushed blocks until they are flushed, bounded by
 * {@code buffer.capacity}.
 *
 * <p>Memory is accounted the way it is actually held: at the level of the pool's chunks (plus
 * unpooled "huge" allocations), as reported by Netty's own allocator metric, not by the bytes of the
 * blocks. A block is copied once, out of the network's receive buffers, into an exact-size buffer
 * of this pool, so a block never pins a receive buffer (or its chunk) shared with other data.
 *
 * <p>The pool has one arena and no thread-local caches, so a freed block returns to its chunk at
 * once and empty chunks are given back. An allocation is admitted only if it fits even when it needs
 * a whole new chunk: an upper bound of the chunk count decides while the pool is far from full, the
 * exact count (a walk over the chunks) near the limit. Allocation is serialised, which costs little
 * next to the copy it precedes.
 */
public final class PushBufferPool {
  /**
   * Chunks of 2^7 pages, 1 MiB with Netty's 8 KiB pages, rather than its default 4 MiB. Blocks of
   * many partitions share a chunk, and a chunk goes back only when every block in it is flushed, so
   * the pool can be full at chunk level while much of it is free space between other partitions'
   * blocks; a smaller chunk holds fewer partitions' blocks and empties sooner. In bin/bench-server.sh
   * runs (4 GiB of 64-256 KiB blocks, 64 partitions, 512 MiB pool, 4 and 16 clients) blocks filled
   * 75-84% of what the pool held while it refused pushes with 1 MiB chunks against 53-68% with 4 MiB,
   * it refused 0-1,700 pushes per run against 1,100-9,400, and the server spent 1.6 rather than 2.4
   * CPU seconds per GiB with 16 clients. Finding a free run costs more with more chunks, but less
   * than the refused frames sent again. Blocks larger than a chunk are allocated exactly, alone.
   */
  private static final int CHUNK_ORDER = 7;

  private final PooledByteBufAllocator allocator;
  private final PooledByteBufAllocatorMetric metric;
  private final long capacity;
  private final long chunkSize;
  /** Bytes of runs handed out and not yet freed: a lower bound of what the chunks hold. */
  private final AtomicLong runBytes = new AtomicLong();
  /** Upper bound of {@link #usedBytes()}, maintained under this pool's lock. */
  private long heldUpperBound;

  public PushBufferPool(long capacity) {
    this.capacity = capacity;
    this.allocator = new PooledByteBufAllocator(
        true, 0, 1, PooledByteBufAllocator.defaultPageSize(), CHUNK_ORDER, 0, 0, false);
    this.metric = allocator.metric();
    this.chunkSize = metric.chunkSize();
  }

  /**
   * An exact-size buffer of {@code length} bytes, or {@code null} when the pool cannot take it without
   * passing {@code buffer.capacity}. The caller owns the buffer and must hand it to
   * {@link #free(ByteBuf)} exactly once.
   */
  public synchronized ByteBuf tryAllocate(int length) {
    long worstCaseGrowth = length >= chunkSize ? length : chunkSize;
    if (heldUpperBound + worstCaseGrowth > capacity) {
      // Frees may have lowered what the chunks hold: count them.
      heldUpperBound = metric.usedDirectMemory();
      if (heldUpperBound + worstCaseGrowth > capacity) {
        return null;
      }
    }
    // Unbounded max capacity so that maxFastWritableBytes() reveals the run actually reserved.
    ByteBuf buf = allocator.directBuffer(length);
    // An allocation adds at most one chunk (or its own size when huge); frees only lower the
    // truth, so this stays an upper bound of what the pool holds without walking its chunks.
    heldUpperBound += worstCaseGrowth;
    runBytes.addAndGet(heldBy(buf));
    return buf;
  }

  /**
   * Returns a buffer obtained from {@link #tryAllocate}. Safe from any thread. The block leaves this
   * budget now even if a memory read still holds a slice of it: that read is charged to the read
   * budget, and the pool's chunk count shows the memory until the read releases it.
   */
  public void free(ByteBuf buf) {
    runBytes.addAndGet(-heldBy(buf));
    buf.release();
  }

  /** Memory the pool holds from the operating system, chunk-granular. */
  public long usedBytes() {
    return metric.usedDirectMemory();
  }

  /** Memory of the buffers handed out, at the granularity of the pool's runs. */
  public long allocatedBytes() {
    return runBytes.get();
  }

  public long capacity() {
    return capacity;
  }

  public long chunkSize() {
    return chunkSize;
  }

  /** The size class a pooled buffer occupies: its capacity rounded up by the pool. */
  private static long heldBy(ByteBuf buf) {
    return (long) buf.writerIndex() + buf.maxFastWritableBytes();
  }
}
