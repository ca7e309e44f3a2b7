package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The buffers that direct reads of local disks read into ({@code storage/DirectRead}): {@link
 * #PIECE_BYTES} each, at an address aligned for {@code O_DIRECT}, part of read memory. Each is a
 * {@link Slab} of its own, reserved from the read budget (its alignment slack too) when it is made,
 * and given back to the budget only when it is freed: a buffer whose read was written goes back
 * here, mapped and already touched, for the next direct read, since memory mapped anew costs a page
 * fault and the kernel's zeroing of each 4 KiB page when the device first fills it. Free buffers
 * are freed once unused for the keep time ({@code buffer.chunk.keep}), looked at whenever buffers
 * are taken or given back, and at once when a memory read needs their room ({@link #freeUnused}).
 *
 * <p>All of them, in use or free, stay within half of the read budget: direct reads can go with
 * sendfile instead, memory reads have no other way out. Thread-safe.
 */
public final class ReadBuffers {
  /** The bytes of one buffer. */
  public static final int PIECE_BYTES = 1 << 20;

  /** What the file system's direct I/O wants of a buffer's address. */
  public static final int ALIGNMENT = 4096;

  /** The memory of one buffer: its bytes and the slack before its first aligned address. */
  static final int SLAB_BYTES = PIECE_BYTES + ALIGNMENT;

  private final Budget budget;
  private final long limit;
  private final long keepNanos;
  private final LongSupplier nanoClock;

  /** Free slabs, the most recently given back first. Guarded by this. */
  private final ArrayDeque<Free> free = new ArrayDeque<>();

  private boolean closed;

  private record Free(Slab slab, long since) {}

  /**
   * @param budget the read budget, which the buffers' memory is reserved from
   * @param keepNanos how long a free buffer stays for the next read
   */
  ReadBuffers(Budget budget, long keepNanos, LongSupplier nanoClock) {
    this.budget = budget;
    this.limit = budget.capacity() / 2;
    this.keepNanos = keepNanos;
    this.nanoClock = nanoClock;
  }

  /**
   * {@code count} buffers of {@link #PIECE_BYTES}, empty, each starting at an address aligned to
   * {@link #ALIGNMENT}; or null, taking none, when read memory cannot hold them all. The caller
   * releases each; its memory then comes back here.
   */
  public List<ByteBuf> tryTake(int count) {
    List<Slab> slabs = new ArrayList<>(count);
    synchronized (this) {
      long now = nanoClock.getAsLong();
      freeOlderThan(now - keepNanos);
      while (slabs.size() < count && !free.isEmpty()) {
        slabs.add(free.pollFirst().slab());
      }
      while (slabs.size() < count) {
        if (closed || !budget.tryReserveWithin(SLAB_BYTES, limit)) {
          for (Slab slab : slabs) {
            free.addFirst(new Free(slab, now));
          }
          return null;
        }
        slabs.add(new Slab(SLAB_BYTES, budget::release));
      }
    }
    List<ByteBuf> pieces = new ArrayList<>(count);
    for (Slab slab : slabs) {
      pieces.add(piece(slab));
    }
    return pieces;
  }

  /** Frees every free buffer, for a memory read that needs the room they hold. */
  public void freeUnused() {
    freeOlderThan(Long.MAX_VALUE);
  }

  /** Frees the free buffers and, as they come back, those in use. */
  synchronized void close() {
    closed = true;
    freeOlderThan(Long.MAX_VALUE);
  }

  /** Free buffers, for tests. */
  synchronized int freeCount() {
    return free.size();
  }

  private ByteBuf piece(Slab slab) {
    long address = slab.memoryAddress();
    int lead = (int) ((ALIGNMENT - address % ALIGNMENT) % ALIGNMENT);
    ByteBuffer memory = slab.nioBuffer(lead, PIECE_BYTES).slice();
    return new PageBlock(memory, PIECE_BYTES, () -> giveBack(slab));
  }

  private void giveBack(Slab slab) {
    synchronized (this) {
      if (!closed) {
        long now = nanoClock.getAsLong();
        free.addFirst(new Free(slab, now));
        freeOlderThan(now - keepNanos);
        return;
      }
    }
    slab.release();
  }

  /** Frees the free buffers given back before {@code before}. */
  private void freeOlderThan(long before) {
    List<Slab> freed = new ArrayList<>();
    synchronized (this) {
      while (!free.isEmpty()
          && (before == Long.MAX_VALUE || free.peekLast().since() - before < 0)) {
        freed.add(free.pollLast().slab());
      }
    }
    // Outside the lock: releasing frees the memory and gives it back to the budget.
    freed.forEach(Slab::release);
  }
}
