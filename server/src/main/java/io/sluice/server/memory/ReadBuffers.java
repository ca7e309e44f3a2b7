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
 * are freed once unused for the keep time ({@code buffer.chunk.keep}; the server looks every
 * second, {@link #freeIdle}), and at once when another read of read memory finds no room ({@link
 * #freeUnused}).
 *
 * <p>All of them, in use or free, stay within half of the read budget's capacity: direct reads can
 * go with sendfile instead, memory reads have no other way out. A request is taken whole or not at
 * all, and nothing is made for one that is refused. Thread-safe; buffers are made and freed outside
 * its lock.
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

  /** Bytes of the slabs made and not yet freed, in use or free. Guarded by this. */
  private long held;

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
    int toMake;
    synchronized (this) {
      int reused = Math.min(count, free.size());
      toMake = count - reused;
      long more = (long) toMake * SLAB_BYTES;
      if (closed
          || held + more > limit
          || (more > 0 && !budget.tryReserveWithin(more, budget.capacity()))) {
        return null;
      }
      held += more;
      for (int i = 0; i < reused; i++) {
        slabs.add(free.pollFirst().slab());
      }
    }
    List<ByteBuf> pieces = new ArrayList<>(count);
    try {
      for (; toMake > 0; toMake--) {
        slabs.add(new Slab(SLAB_BYTES, this::freed));
      }
      for (Slab slab : slabs) {
        pieces.add(piece(slab));
      }
      return pieces;
    } catch (Throwable e) {
      // Out of direct memory, say: what was reserved for buffers not made goes back, and the
      // buffers made or reused go back to the free ones.
      synchronized (this) {
        held -= (long) toMake * SLAB_BYTES;
      }
      budget.release((long) toMake * SLAB_BYTES);
      pieces.forEach(ByteBuf::release);
      for (int i = pieces.size(); i < slabs.size(); i++) {
        giveBack(slabs.get(i));
      }
      throw e;
    }
  }

  /** Frees the free buffers unused for the keep time; the server calls it every second. */
  public void freeIdle() {
    List<Slab> freed;
    synchronized (this) {
      freed = takeFreeSince(nanoClock.getAsLong() - keepNanos);
    }
    freed.forEach(Slab::release);
  }

  /** Frees every free buffer, for another read of read memory that needs their room. */
  public void freeUnused() {
    List<Slab> freed;
    synchronized (this) {
      freed = takeFreeSince(Long.MAX_VALUE);
    }
    freed.forEach(Slab::release);
  }

  /** Frees the free buffers and, as they come back, those in use. */
  void close() {
    synchronized (this) {
      closed = true;
    }
    freeUnused();
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
      if (!closed && keepNanos > 0) {
        free.addFirst(new Free(slab, nanoClock.getAsLong()));
        return;
      }
    }
    slab.release();
  }

  /** A slab's memory went back to the operating system. */
  private void freed(long bytes) {
    synchronized (this) {
      held -= bytes;
    }
    budget.release(bytes);
  }

  /**
   * Takes off the free list the slabs given back before {@code before} ({@link Long#MAX_VALUE}:
   * all), for the caller to free outside the lock.
   */
  private List<Slab> takeFreeSince(long before) {
    List<Slab> taken = new ArrayList<>();
    while (!free.isEmpty() && (before == Long.MAX_VALUE || free.peekLast().since() - before < 0)) {
      taken.add(free.pollLast().slab());
    }
    return taken;
  }
}
