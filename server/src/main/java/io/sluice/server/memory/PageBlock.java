package io.sluice.server.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import java.nio.ByteBuffer;

/**
 * A block of the push pool in pages of a {@link PageArena} chunk: a buffer of exactly the block's
 * length over that memory, which it does not own. Its own reference count (memory reads hold slices
 * of it) says when its pages are free again: when it reaches zero they go back to the chunk. Leaks
 * are reported through Netty's leak detector, as for any pooled buffer.
 */
final class PageBlock extends UnpooledUnsafeDirectByteBuf {
  private static final ResourceLeakDetector<ByteBuf> LEAKS =
      ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class);

  private final int charge;
  private final Runnable onDeallocate;
  private final ResourceLeakTracker<ByteBuf> leak;

  /**
   * @param memory the block's bytes, a slice of its chunk
   * @param charge the bytes of the pages it takes
   * @param onDeallocate gives the pages back; run once, when the count reaches zero
   */
  PageBlock(ByteBuffer memory, int charge, Runnable onDeallocate) {
    super(UnpooledByteBufAllocator.DEFAULT, memory, memory.remaining());
    this.charge = charge;
    this.onDeallocate = onDeallocate;
    this.leak = LEAKS.track(this);
    clear();
  }

  /** What the block takes of the pool: its pages. */
  int charge() {
    return charge;
  }

  @Override
  protected void deallocate() {
    // The memory is the chunk's: the superclass does not free a buffer it was given.
    super.deallocate();
    if (leak != null) {
      leak.close(this);
    }
    onDeallocate.run();
  }
}
