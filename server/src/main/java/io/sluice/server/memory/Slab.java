package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * One piece of direct memory of the push pool. As a slab of small blocks it holds them back to
 * back, each a retained slice of it, so Netty's reference count says when the memory can go: when
 * the last block is freed and the last memory read of one has released its slice. As a {@link
 * PageArena} chunk it lends its memory to blocks that hold no reference, and the arena releases it
 * when their pages are all back. Either way the memory is then returned to the operating system at
 * once and {@code onFree} is told how many bytes left.
 *
 * <p>Blocks of one slab are written by different event loops at once. The unsafe variant copies by
 * memory address; the plain one goes through a {@code ByteBuffer} shared by the whole slab and
 * corrupts concurrent writes, so Sluice requires {@code sun.misc.Unsafe} (as Netty's own pooled
 * allocator prefers it).
 *
 * <p>The memory comes from where Netty's own direct buffers come from: without a cleaner, counted
 * in Netty's direct memory counter (and not zeroed) when the JVM lets Netty do that, as the
 * server's JVM options do; from {@code ByteBuffer.allocateDirect} otherwise.
 *
 * <p>Leaks are reported through Netty's leak detector like any pooled buffer's.
 */
final class Slab extends UnpooledUnsafeDirectByteBuf {
  private static final ResourceLeakDetector<ByteBuf> LEAKS =
      ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class);

  private final LongConsumer onFree;
  private final ResourceLeakTracker<ByteBuf> leak;

  /** Bytes of this slab handed out to blocks; guarded by the pool's lock. */
  private int used;

  Slab(int size, LongConsumer onFree) {
    super(UnpooledByteBufAllocator.DEFAULT, checkUnsafe(size), size);
    this.onFree = onFree;
    this.leak = LEAKS.track(this);
  }

  boolean fits(int length) {
    return capacity() - used >= length;
  }

  /**
   * A block of {@code length} bytes at the end of what is used, empty and ready to be written, that
   * takes {@code charge} bytes of the slab (at least {@code length}).
   */
  ByteBuf take(int length, int charge) {
    ByteBuf block = retainedSlice(used, length).clear();
    used += charge;
    return block;
  }

  /**
   * Starts again from the beginning when nothing but the pool's own reference holds the slab: no
   * block, no read of one.
   */
  void rewindIfUnused() {
    if (refCnt() == 1) {
      used = 0;
    }
  }

  private static int checkUnsafe(int size) {
    if (!PlatformDependent.hasUnsafe()) {
      throw new IllegalStateException(
          "the push pool needs sun.misc.Unsafe, which Netty cannot "
              + "use here: "
              + PlatformDependent.getUnsafeUnavailabilityCause()
              + " (do not set io.netty.noUnsafe)");
    }
    return size;
  }

  @Override
  protected ByteBuffer allocateDirect(int size) {
    // Called from the superclass constructor: must not touch this object's fields.
    return PlatformDependent.useDirectBufferNoCleaner()
        ? PlatformDependent.allocateDirectNoCleaner(size)
        : super.allocateDirect(size);
  }

  @Override
  protected void freeDirect(ByteBuffer buffer) {
    if (PlatformDependent.useDirectBufferNoCleaner()) {
      PlatformDependent.freeDirectNoCleaner(buffer);
    } else {
      super.freeDirect(buffer);
    }
  }

  @Override
  protected void deallocate() {
    long size = capacity();
    super.deallocate();
    if (leak != null) {
      leak.close(this);
    }
    onFree.accept(size);
  }
}
