package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The off-heap pool that holds pushed blocks until they are flushed, bounded by
 * {@code buffer.capacity}, and the one owner of the push admission rule: which pushes the server
 * takes ({@link #tryAllocate}), when flushing must start ({@link #needsFlush()}) and how much of the
 * held data a flush round must write ({@link #bytesToFlush()}).
 *
 * <p>The pool manages its own memory in {@link Slab}s: blocks smaller than an eighth of a slab are
 * placed back to back in the open 1 MiB slab, larger ones that do not fit it get memory of their own,
 * exactly their size. Memory is accounted as it is actually held from the operating system: a slab
 * counts in full from its allocation until its last block is freed and its last memory read released
 * ({@link #usedBytes()}), so admission never lets the pool's direct memory pass its capacity. Nothing
 * is kept once it holds no block: an empty pool holds no memory and admits again (a general-purpose
 * pooled allocator keeps chunks and pages of small size classes that hold nothing, which the rule
 * would count as full). A block is copied once, out of the network's receive buffers, into its place
 * here, so a block never pins a receive buffer shared with other data.
 *
 * <p>Allocation is a bump of the open slab's offset under this pool's lock, which also guards the
 * slab's return when the last block leaves; {@link #free} is safe from any thread.
 */
public final class PushBufferPool {
  /**
   * Slabs of 1 MiB. Blocks of many partitions share a slab, and a slab goes back only when every
   * block in it is flushed, so the pool can be full of slabs while much of it is space freed between
   * other partitions' blocks; a smaller slab empties sooner, a larger one costs fewer allocations.
   */
  static final int SLAB_SIZE = 1 << 20;
  /**
   * A block from this size up that does not fit the open slab gets memory of its own instead of a
   * new slab, so a slab's unused tail is always smaller than this.
   */
  static final int OWN_MEMORY_THRESHOLD = SLAB_SIZE / 8;

  private final long capacity;
  private final long highBytes;
  private final long lowBytes;
  /** Memory of live slabs, the open one included; lowered when a slab's memory is freed. */
  private final AtomicLong heldBytes = new AtomicLong();
  /** Bytes of the blocks handed out and not yet freed: a lower bound of {@link #heldBytes}. */
  private final AtomicLong blockBytes = new AtomicLong();
  private final LongConsumer released = bytes -> heldBytes.addAndGet(-bytes);
  /** The slab small blocks go to; the pool holds one reference to it. Guarded by this. */
  private Slab open;

  /**
   * @param highWatermark fraction of the capacity held at which flushing starts
   *     ({@code buffer.flush.high.watermark})
   * @param lowWatermark fraction of the capacity a flush round drains pushed data down to
   *     ({@code buffer.flush.low.watermark})
   */
  public PushBufferPool(long capacity, double highWatermark, double lowWatermark) {
    if (capacity <= 0 || !(lowWatermark >= 0 && lowWatermark < highWatermark
        && highWatermark <= 1)) {
      throw new IllegalArgumentException("invalid push pool: capacity " + capacity
          + ", watermarks " + lowWatermark + " / " + highWatermark);
    }
    this.capacity = capacity;
    this.highBytes = (long) (capacity * highWatermark);
    this.lowBytes = (long) (capacity * lowWatermark);
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
    if (open != null) {
      open.rewindIfUnused();
      if (open.fits(length)) {
        return taken(open.take(length), length);
      }
    }
    if (length >= OWN_MEMORY_THRESHOLD) {
      if (!reserve(length)) {
        return null;
      }
      // The block is the slab: its one reference is the block's.
      return taken(new Slab(length, released), length);
    }
    if (!reserve(SLAB_SIZE)) {
      return null;
    }
    if (open != null) {
      // Its blocks keep it alive; the pool lets go of its own reference.
      open.release();
    }
    open = new Slab(SLAB_SIZE, released);
    return taken(open.take(length), length);
  }

  /**
   * Returns a buffer obtained from {@link #tryAllocate}. Safe from any thread. The block leaves the
   * pool's count of blocks now; its memory stays counted as held until no memory read holds a slice
   * of it (such a read is charged to the read budget too) and no other block shares its slab.
   */
  public void free(ByteBuf buf) {
    blockBytes.addAndGet(-buf.capacity());
    synchronized (this) {
      buf.release();
      if (open != null && open.refCnt() == 1) {
        // Nothing but the pool holds the open slab: give its memory back.
        open.release();
        open = null;
      }
    }
  }

  /**
   * Whether a push of {@code bytes} could be admitted at all, with the pool empty: a larger one can
   * never succeed and is refused for good, not with a retriable status.
   */
  public boolean canEverHold(long bytes) {
    return bytes <= capacity;
  }

  /** Whether the pool holds enough that flushing must start: at or above the high watermark. */
  public boolean needsFlush() {
    return usedBytes() >= highBytes;
  }

  /**
   * Bytes of pushed data a flush round must write now so that what the pool holds falls to the low
   * watermark; 0 while the pool is under the high watermark. When slabs are held mostly by freed
   * space around a few blocks, the round writes more blocks than the watermarks alone ask for, up to
   * all of them, since only freeing those few blocks gives their slabs back.
   */
  public long bytesToFlush() {
    if (!needsFlush()) {
      return 0;
    }
    long blocks = allocatedBytes();
    long aboveLow = Math.max(blocks - lowBytes, usedBytes() - lowBytes);
    return Math.max(0, Math.min(blocks, aboveLow));
  }

  /** Memory the pool holds from the operating system: its live slabs. */
  public long usedBytes() {
    return heldBytes.get();
  }

  /** Bytes of the blocks handed out and not yet freed. */
  public long allocatedBytes() {
    return blockBytes.get();
  }

  public long capacity() {
    return capacity;
  }

  public long slabSize() {
    return SLAB_SIZE;
  }

  /** Reserves {@code bytes} of the capacity for a new slab; callers hold this pool's lock. */
  private boolean reserve(long bytes) {
    // Concurrent frees only lower the count, so checking and then adding cannot pass the capacity.
    if (heldBytes.get() + bytes > capacity) {
      return false;
    }
    heldBytes.addAndGet(bytes);
    return true;
  }

  private ByteBuf taken(ByteBuf block, int length) {
    blockBytes.addAndGet(length);
    return block;
  }
}
