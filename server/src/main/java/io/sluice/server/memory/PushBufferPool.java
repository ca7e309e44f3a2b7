package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The off-heap pool that holds pushed blocks until they are flushed, bounded by {@code
 * buffer.capacity}, and the one owner of the push admission rule: which pushes the server takes
 * ({@link #tryAllocate}), when flushing must start ({@link #needsFlush()}) and how much of the held
 * data a flush round must write ({@link #bytesToFlush()}).
 *
 * <p>Memory is accounted the way it is actually held from the operating system, never by the bytes
 * of the blocks, and counted exactly as it changes, all but the slack that aligns the chunks' pages
 * ({@link #alignmentSlack}). It comes from two places:
 *
 * <ul>
 *   <li>Blocks of {@link #SMALL_BLOCK} bytes and more: a {@link PageArena}, 1 MiB chunks of 8 KiB
 *       pages, a block taking a run of whole pages. A flushed block's pages take new blocks while
 *       the rest of its chunk waits for its own flushes, so steady ingest reuses mapped memory; a
 *       chunk whose last block goes is kept as a spare for the next chunk needed, for at most
 *       {@code buffer.chunk.keep} when it is not reused, and counts against the capacity meanwhile.
 *   <li>Smaller blocks: {@link Slab}s of 1 MiB that the pool allocates and frees itself, blocks
 *       back to back, a slab freed when its last block goes.
 * </ul>
 *
 * <p>An allocation is admitted only if it fits even when it needs a whole new chunk or slab. A
 * block is copied once, out of the network's receive buffers, into its buffer here, so a block
 * never pins a receive buffer shared with other data. Allocation is serialised, which costs little
 * next to the copy it precedes.
 */
public final class PushBufferPool {
  /** Blocks smaller than this go to slabs; larger ones to the page arena. */
  static final int SMALL_BLOCK = 32 * 1024;

  static final int SLAB_SIZE = 1 << 20;

  private final PageArena arena;
  private final long capacity;
  private final long highBytes;
  private final long lowBytes;

  /** The least a block is charged, so that the pool's capacity bounds how many blocks it holds. */
  private final int minBlockCharge;

  /** Bytes of the blocks handed out and not yet freed, large ones by their pages. */
  private final AtomicLong blockBytes = new AtomicLong();

  /** Memory of live slabs, the open one included; lowered when a slab's memory is freed. */
  private final AtomicLong slabBytes = new AtomicLong();

  /** Memory of slabs freed since the last {@link #free}: room for small blocks again. */
  private final AtomicLong slabsFreedSinceFree = new AtomicLong();

  private final LongConsumer slabFreed =
      bytes -> {
        slabBytes.addAndGet(-bytes);
        slabsFreedSinceFree.addAndGet(bytes);
      };

  /** The slab small blocks go to; the pool holds one reference to it. Guarded by this. */
  private Slab open;

  private final RoomQueue roomQueue = new RoomQueue();

  /**
   * @param highWatermark fraction of the capacity held at which flushing starts ({@code
   *     buffer.flush.high.watermark})
   * @param lowWatermark fraction of the capacity a flush round drains pushed data down to ({@code
   *     buffer.flush.low.watermark})
   */
  public PushBufferPool(long capacity, double highWatermark, double lowWatermark) {
    this(capacity, highWatermark, lowWatermark, 1);
  }

  /** A pool that gives each emptied chunk back at once (see the next constructor). */
  public PushBufferPool(
      long capacity, double highWatermark, double lowWatermark, int minBlockCharge) {
    this(capacity, highWatermark, lowWatermark, minBlockCharge, Duration.ZERO);
  }

  /**
   * @param minBlockCharge the least a block takes of the capacity, however small (at most {@link
   *     #SMALL_BLOCK}): the pool then holds at most {@code capacity / minBlockCharge} blocks, which
   *     bounds the heap their bookkeeping takes (see {@link #minBlockCharge(long, long)})
   * @param spareKeep how long an emptied chunk is kept for reuse ({@code buffer.chunk.keep}; zero
   *     gives it back at once); a pool that keeps spares is to be {@link #close closed}
   */
  public PushBufferPool(
      long capacity,
      double highWatermark,
      double lowWatermark,
      int minBlockCharge,
      Duration spareKeep) {
    if (minBlockCharge < 1 || minBlockCharge > SMALL_BLOCK) {
      throw new IllegalArgumentException(
          "a block's least charge must be 1 to " + SMALL_BLOCK + " bytes, got " + minBlockCharge);
    }
    this.minBlockCharge = minBlockCharge;
    if (capacity <= 0
        || !(lowWatermark >= 0 && lowWatermark < highWatermark && highWatermark <= 1)) {
      throw new IllegalArgumentException(
          "invalid push pool: capacity "
              + capacity
              + ", watermarks "
              + lowWatermark
              + " / "
              + highWatermark);
    }
    this.capacity = capacity;
    this.highBytes = (long) (capacity * highWatermark);
    this.lowBytes = (long) (capacity * lowWatermark);
    this.arena = new PageArena(this, spareKeep.toNanos());
  }

  /**
   * The least charge per block that keeps a pool of {@code capacity} bytes at {@code maxBlocks}
   * blocks or fewer ({@code buffer.capacity / heap.blocks.in.memory}), up to {@link #SMALL_BLOCK},
   * beyond which every block is charged at least that much anyway.
   */
  public static int minBlockCharge(long capacity, long maxBlocks) {
    return (int) Math.min(SMALL_BLOCK, Math.max(1, (capacity + maxBlocks - 1) / maxBlocks));
  }

  /** The most blocks a pool of {@code capacity} bytes holds with {@link #minBlockCharge}. */
  public static long maxBlocks(long capacity, long maxBlocks) {
    return capacity / minBlockCharge(capacity, maxBlocks);
  }

  /**
   * An empty buffer with room for exactly {@code length} bytes, or {@code null} when the pool
   * cannot take it without passing {@code buffer.capacity}. The caller owns the buffer and must
   * hand it to {@link #free(ByteBuf)} exactly once.
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
    // Room for other blocks: a large block's pages now (unless a memory read still holds them,
    // until it ends), a small block's place only once its whole slab goes.
    long room;
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
      room = slabsFreedSinceFree.getAndSet(0);
    } else {
      room = ((PageBlock) buf).charge();
      blockBytes.addAndGet(-room);
      buf.release();
    }
    roomQueue.freed(room, arena.heldBytesSnapshot() + slabBytes.get() < highBytes);
  }

  /**
   * A push was refused for want of room (its blocks, partly placed, are freed by now): from now on
   * pushes wait for room ({@link #hasRoomOrQueue}).
   */
  public void pushRefused() {
    roomQueue.pushRefused();
  }

  /**
   * Whether a push of about {@code bytes} may be read now; when not (or other pushes wait already),
   * queues {@code resume} to run, on the thread that frees the room, once it may. The pool counts
   * as having room until a push is refused ({@link #pushRefused}); then a push waits until blocks
   * of its size were freed, or until the pool holds less than its high watermark (see {@link
   * RoomQueue}).
   *
   * @return true when there is room now; false when {@code resume} was queued
   */
  public boolean hasRoomOrQueue(long bytes, Runnable resume) {
    return roomQueue.hasRoomOrQueue(bytes, resume);
  }

  /** Takes back a queued {@code resume}; false when it ran already, or is about to. */
  public boolean cancelRoomWait(Runnable resume) {
    return roomQueue.cancel(resume);
  }

  /** Pushes waiting for room now. */
  public int roomWaiters() {
    return roomQueue.size();
  }

  /**
   * Whether a push of blocks that the pool charges {@code chargedBytes} in all (see {@link
   * #chargeOf}) could be admitted at all, with the pool empty: a larger one can never succeed and
   * is refused for good, not with a retriable status.
   */
  public boolean canEverHold(long chargedBytes) {
    return chargedBytes <= capacity;
  }

  /** What a block of {@code length} bytes takes of the capacity: its pages, or its least charge. */
  public long chargeOf(int length) {
    return length < SMALL_BLOCK
        ? Math.max(length, minBlockCharge)
        : (long) PageArena.pagesFor(length) * PageArena.PAGE_SIZE;
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
   * {@link #needsFlush()} without the pool's lock, from the memory held as of the last change:
   * cheap enough to ask after every push on an event loop.
   */
  public boolean mayNeedFlush() {
    return Math.max(arena.heldBytesSnapshot() + slabBytes.get(), blockBytes.get()) >= highBytes;
  }

  /**
   * Bytes of pushed data a flush round must write now so that what the pool holds falls to the low
   * watermark; 0 while the pool is under the high watermark. When chunks or slabs are held mostly
   * by free space around a few blocks, the round writes more blocks than the watermarks alone ask
   * for, up to all of them, since only freeing those blocks gives that memory back.
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
   * Memory the pool's blocks keep from the operating system: the arena's chunks that hold blocks
   * and the live slabs; what the flush watermarks compare. Under this pool's lock, so that no
   * allocation moves memory between the two counts while they are read (frees only lower them): the
   * sum is what the pool held at one moment.
   */
  public synchronized long usedBytes() {
    return arena.heldBytes() + slabBytes.get();
  }

  /**
   * Memory the pool holds from the operating system: {@link #usedBytes()} and the spare chunks kept
   * for reuse. {@code buffer.capacity} bounds it.
   */
  public synchronized long heldBytes() {
    return arena.heldBytes() + arena.spareBytes() + slabBytes.get();
  }

  /** Gives back the spare chunks that were not reused within the spare keep time. */
  public synchronized void releaseIdleSpares() {
    arena.releaseIdleSpares(System.nanoTime());
  }

  /**
   * Gives back every spare chunk, and from now on each chunk as it empties. The blocks still handed
   * out stay valid until freed.
   */
  public synchronized void close() {
    arena.close();
  }

  /** Bytes of the blocks handed out and not yet freed (large blocks rounded to their pages). */
  public long allocatedBytes() {
    return blockBytes.get();
  }

  public long capacity() {
    return capacity;
  }

  /**
   * Direct memory the pool takes beyond {@code capacity}: the slack before each chunk's pages that
   * aligns them ({@link PageArena#PAGE_ALIGNMENT}). Every chunk is at least {@link
   * PageArena#CHUNK_SIZE} and the chunks' pages never pass the capacity, so there are at most
   * {@code capacity / CHUNK_SIZE} of them.
   */
  public static long alignmentSlack(long capacity) {
    return capacity / PageArena.CHUNK_SIZE * PageArena.PAGE_ALIGNMENT;
  }

  /** The size of the arena's chunks and of slabs. */
  public long chunkSize() {
    return PageArena.CHUNK_SIZE;
  }

  private ByteBuf fromArena(int length) {
    PageBlock block = arena.allocate(length, capacity - slabBytes.get());
    if (block == null) {
      return null;
    }
    blockBytes.addAndGet(block.charge());
    return block;
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
    if (!arena.makeRoom(SLAB_SIZE, capacity - slabBytes.get())) {
      return null;
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
}
