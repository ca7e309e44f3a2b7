package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PoolChunkListMetric;
import io.netty.buffer.PoolChunkMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The off-heap pool that holds pushed blocks until they are flushed, bounded by
 * {@code buffer.capacity}, and the one owner of the push admission rule: which pushes the server
 * takes ({@link #tryAllocate}), when flushing must start ({@link #needsFlush()}) and how much of the
 * held data a flush round must write ({@link #bytesToFlush()}).
 *
 * <p>Memory is accounted the way it is actually held from the operating system, never by the bytes
 * of the blocks. It comes from two places:
 * <ul>
 *   <li>Blocks of {@link #SMALL_BLOCK} bytes and more: a Netty {@code PooledByteBufAllocator} of the
 *       pool's own (one arena, no thread caches, 1 MiB chunks), whose buddy allocation reuses the
 *       space of flushed blocks and keeps its chunks mapped, so steady ingest costs no page faults.
 *       Counted chunk by chunk, as Netty's metric reports it.
 *   <li>Smaller blocks: {@link Slab}s of 1 MiB that the pool allocates and frees itself, blocks back
 *       to back, a slab freed when its last block goes. Netty keeps an empty page of each of its
 *       small size classes for reuse, and those pages pin chunks that then hold no block; counted as
 *       held, they once made an empty pool refuse every push. Slabs keep nothing.
 * </ul>
 *
 * <p>An allocation is admitted only if it fits even when it needs a whole new chunk or slab: an
 * upper bound of what the pool holds decides while the pool is far from full, the exact count (a
 * walk over the chunks) near the limit, where an allocation is also admitted when a chunk is
 * entirely free (Netty keeps chunks that never passed a quarter of use, and fills an empty one before
 * it creates another). A block is copied once, out of the network's receive buffers, into its buffer
 * here, so a block never pins a receive buffer shared with other data. Allocation is serialised,
 * which costs little next to the copy it precedes.
 */
public final class PushBufferPool {
  /**
   * Chunks of 2^7 pages, 1 MiB with Netty's 8 KiB pages, rather than its default 4 MiB: a chunk goes
   * back only when every block in it is flushed, and a smaller chunk holds fewer partitions' blocks
   * and empties sooner (bin/bench-server.sh: blocks filled 75-84% of the pool while it refused pushes
   * with 1 MiB chunks against 53-68% with 4 MiB, and far fewer pushes were refused).
   */
  private static final int CHUNK_ORDER = 7;
  /** Blocks smaller than this, Netty's small size classes, go to slabs. */
  static final int SMALL_BLOCK = 32 * 1024;
  static final int SLAB_SIZE = 1 << 20;

  private final PooledByteBufAllocator allocator;
  private final PooledByteBufAllocatorMetric metric;
  private final long capacity;
  private final long highBytes;
  private final long lowBytes;
  private final long chunkSize;
  /** The least a block is charged, so that the pool's capacity bounds how many blocks it holds. */
  private final int minBlockCharge;
  /** Bytes of the blocks handed out and not yet freed, at the arena's size-class granularity. */
  private final AtomicLong blockBytes = new AtomicLong();
  /** Memory of live slabs, the open one included; lowered when a slab's memory is freed. */
  private final AtomicLong slabBytes = new AtomicLong();
  private final LongConsumer slabFreed = bytes -> slabBytes.addAndGet(-bytes);
  /** Upper bound of what the arena holds, maintained under this pool's lock. */
  private long arenaUpperBound;
  /** What the arena held at the last exact count, for {@link #mayNeedFlush()}. */
  private volatile long countedArenaBytes;
  /** The slab small blocks go to; the pool holds one reference to it. Guarded by this. */
  private Slab open;

  /**
   * @param highWatermark fraction of the capacity held at which flushing starts
   *     ({@code buffer.flush.high.watermark})
   * @param lowWatermark fraction of the capacity a flush round drains pushed data down to
   *     ({@code buffer.flush.low.watermark})
   */
  public PushBufferPool(long capacity, double highWatermark, double lowWatermark) {
    this(capacity, highWatermark, lowWatermark, 1);
  }

  /**
   * @param minBlockCharge the least a block takes of the capacity, however small (at most
   *     {@link #SMALL_BLOCK}): the pool then holds at most {@code capacity / minBlockCharge} blocks,
   *     which bounds the heap their bookkeeping takes (see {@link #minBlockCharge(long, long)})
   */
  public PushBufferPool(long capacity, double highWatermark, double lowWatermark,
      int minBlockCharge) {
    if (minBlockCharge < 1 || minBlockCharge > SMALL_BLOCK) {
      throw new IllegalArgumentException("a block's least charge must be 1 to " + SMALL_BLOCK
          + " bytes, got " + minBlockCharge);
    }
    this.minBlockCharge = minBlockCharge;
    if (capacity <= 0 || !(lowWatermark >= 0 && lowWatermark < highWatermark
        && highWatermark <= 1)) {
      throw new IllegalArgumentException("invalid push pool: capacity " + capacity
          + ", watermarks " + lowWatermark + " / " + highWatermark);
    }
    this.capacity = capacity;
    this.highBytes = (long) (capacity * highWatermark);
    this.lowBytes = (long) (capacity * lowWatermark);
    this.allocator = new PooledByteBufAllocator(
        true, 0, 1, PooledByteBufAllocator.defaultPageSize(), CHUNK_ORDER, 0, 0, false);
    this.metric = allocator.metric();
    this.chunkSize = metric.chunkSize();
  }

  /**
   * The least charge per block that keeps a pool of {@code capacity} bytes at
   * {@code maxBlocks} blocks or fewer ({@code buffer.capacity / heap.blocks.in.memory}), up to
   * {@link #SMALL_BLOCK}, beyond which every block is charged at least that much anyway.
   */
  public static int minBlockCharge(long capacity, long maxBlocks) {
    return (int) Math.min(SMALL_BLOCK, Math.max(1, (capacity + maxBlocks - 1) / maxBlocks));
  }

  /** The most blocks a pool of {@code capacity} bytes holds with {@link #minBlockCharge}. */
  public static long maxBlocks(long capacity, long maxBlocks) {
    return capacity / minBlockCharge(capacity, maxBlocks);
  }

  /**
   * An empty buffer with room for exactly {@code length} bytes, or {@code null} when the pool cannot
   * take it without passing {@code buffer.capacity}. The caller owns the buffer and must hand it to
   * {@link #free(ByteBuf)} exactly once.
   */
  public synchronized ByteBuf tryAllocate(int length) {
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length);
    }
    return length < SMALL_BLOCK ? fromSlab(length) : fromArena(length);
  }

  /**
   * Returns a buffer obtained from {@link #tryAllocate}. Safe from any thread. The block leaves the
   * pool's count of blocks now; its memory stays counted as held until no memory read holds a slice
   * of it (such a read is charged to the read budget too) and, for a small block, no other block
   * shares its slab.
   */
  public void free(ByteBuf buf) {
    if (buf.capacity() < SMALL_BLOCK) {
      blockBytes.addAndGet(-Math.max(buf.capacity(), minBlockCharge));
      synchronized (this) {
        buf.release();
        if (open != null && open.refCnt() == 1) {
          // Nothing but the pool holds the open slab: give its memory back.
          open.release();
          open = null;
        }
      }
    } else {
      blockBytes.addAndGet(-heldBy(buf));
      buf.release();
    }
  }

  /**
   * Whether a push of blocks that the pool charges {@code chargedBytes} in all (see
   * {@link #chargeOf}) could be admitted at all, with the pool empty: a larger one can never
   * succeed and is refused for good, not with a retriable status.
   */
  public boolean canEverHold(long chargedBytes) {
    return chargedBytes <= capacity;
  }

  /** What a block of {@code length} bytes takes of the capacity, at least (its least charge). */
  public long chargeOf(int length) {
    return length < SMALL_BLOCK ? Math.max(length, minBlockCharge) : length;
  }

  /** The least a block takes of the capacity ({@code buffer.capacity / heap.blocks.in.memory}). */
  public int minBlockCharge() {
    return minBlockCharge;
  }

  /** Whether the pool holds enough that flushing must start: at or above the high watermark. */
  public boolean needsFlush() {
    return usedBytes() >= highBytes;
  }

  /**
   * {@link #needsFlush()} with the arena as of its last exact count (the flush planner counts every
   * 50 ms, and allocation near the limit counts too), or as soon as the blocks alone pass the high
   * watermark. Cheap enough to ask after every push on an event loop, where counting the arena's
   * chunks (a walk under the arena's lock) once cost a quarter of the server's Java time.
   */
  public boolean mayNeedFlush() {
    return Math.max(countedArenaBytes + slabBytes.get(), blockBytes.get()) >= highBytes;
  }

  /**
   * Bytes of pushed data a flush round must write now so that what the pool holds falls to the low
   * watermark; 0 while the pool is under the high watermark. When chunks or slabs are held mostly by
   * free space around a few blocks, the round writes more blocks than the watermarks alone ask for,
   * up to all of them, since only freeing those blocks gives that memory back.
   */
  public long bytesToFlush() {
    if (!needsFlush()) {
      return 0;
    }
    long blocks = allocatedBytes();
    long aboveLow = Math.max(blocks - lowBytes, usedBytes() - lowBytes);
    return Math.max(0, Math.min(blocks, aboveLow));
  }

  /**
   * Memory the pool holds from the operating system: the arena's chunks and the live slabs. Counts
   * the chunks (a walk under the arena's lock): not for every push. Under this pool's lock, so that
   * no allocation moves memory between the two counts while they are read (frees only lower them):
   * the sum is what the pool held at one moment.
   */
  public synchronized long usedBytes() {
    long arena = metric.usedDirectMemory();
    countedArenaBytes = arena;
    return arena + slabBytes.get();
  }

  /** Bytes of the blocks handed out and not yet freed (large blocks rounded to their size class). */
  public long allocatedBytes() {
    return blockBytes.get();
  }

  public long capacity() {
    return capacity;
  }

  public long chunkSize() {
    return chunkSize;
  }

  private ByteBuf fromArena(int length) {
    long worstCaseGrowth = length >= chunkSize ? length : chunkSize;
    if (arenaUpperBound + slabBytes.get() + worstCaseGrowth > capacity) {
      // Frees may have lowered what the chunks hold: count them.
      arenaUpperBound = metric.usedDirectMemory();
      countedArenaBytes = arenaUpperBound;
      if (arenaUpperBound + slabBytes.get() + worstCaseGrowth > capacity
          && !(length <= largestBlockAnEmptyChunkTakes() && hasEmptyChunk())) {
        return null;
      }
    }
    // Unbounded max capacity so that maxFastWritableBytes() reveals the run actually reserved.
    ByteBuf buf = allocator.directBuffer(length);
    // An allocation adds at most one chunk (or its own size when huge); frees only lower the truth,
    // so this stays an upper bound of what the arena holds without walking its chunks.
    arenaUpperBound += worstCaseGrowth;
    blockBytes.addAndGet(heldBy(buf));
    return buf;
  }

  /**
   * The largest block Netty puts into a chunk that already exists: a request goes to an existing
   * chunk only when its size class is below 99% of a chunk, and the largest class below a chunk is
   * 7/8 of one (four classes per doubling). A block of a larger class always opens a new chunk, so
   * an empty chunk says nothing about where it goes (bin/bench-scale.sh saw 1 MiB blocks take the
   * pool past its capacity that way).
   */
  private long largestBlockAnEmptyChunkTakes() {
    return chunkSize - chunkSize / 8;
  }

  /** Whether one of the arena's chunks holds nothing: a small enough allocation goes there. */
  private boolean hasEmptyChunk() {
    for (PoolArenaMetric arena : metric.directArenas()) {
      for (PoolChunkListMetric list : arena.chunkLists()) {
        for (PoolChunkMetric chunk : list) {
          if (chunk.freeBytes() == chunk.chunkSize()) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private ByteBuf fromSlab(int length) {
    // A block takes at least the least charge of its slab, so a slab holds a bounded number.
    int charge = Math.max(length, minBlockCharge);
    if (open != null) {
      open.rewindIfUnused();
      if (open.fits(charge)) {
        blockBytes.addAndGet(charge);
        return open.take(length, charge);
      }
    }
    if (arenaUpperBound + slabBytes.get() + SLAB_SIZE > capacity) {
      arenaUpperBound = metric.usedDirectMemory();
      countedArenaBytes = arenaUpperBound;
      if (arenaUpperBound + slabBytes.get() + SLAB_SIZE > capacity) {
        return null;
      }
    }
    // Concurrent frees only lower the count, so checking and then adding cannot pass the capacity.
    slabBytes.addAndGet(SLAB_SIZE);
    if (open != null) {
      // Its blocks keep it alive; the pool lets go of its own reference.
      open.release();
    }
    open = new Slab(SLAB_SIZE, slabFreed);
    blockBytes.addAndGet(charge);
    return open.take(length, charge);
  }

  /** The size class a pooled buffer occupies: its capacity rounded up by the pool. */
  private static long heldBy(ByteBuf buf) {
    return (long) buf.writerIndex() + buf.maxFastWritableBytes();
  }
}
