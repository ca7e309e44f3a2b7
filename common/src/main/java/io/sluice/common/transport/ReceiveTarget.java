package io.sluice.common.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * One connection's receive buffers: those of the channel's usual allocator, except while a handler
 * names a buffer of its own ({@link #set}), into which the socket then reads straight (a view of
 * its unwritten part per read, so no read passes its end). Such a read reaches the pipeline as that
 * view, which {@link #isOwnRead} tells apart; the handler then moves the buffer's writer index on
 * by what the view holds and releases the view.
 *
 * <p>Netty asks the allocator of a channel for a buffer before every socket read and hands what was
 * read to the pipeline before it asks again, all on the channel's event loop: a buffer named while
 * one read is handled takes the next read. One instance per channel, used on its event loop only.
 * Not for connections under TLS, whose socket reads are ciphertext.
 */
public final class ReceiveTarget implements RecvByteBufAllocator {
  private final RecvByteBufAllocator usual;
  private ByteBuf target;

  /** The view of the target handed to the last read, until the pipeline saw it. */
  private ByteBuf handedOut;

  public ReceiveTarget(RecvByteBufAllocator usual) {
    this.usual = usual;
  }

  /**
   * Has the next reads go into {@code buffer}, from its writer index up to its capacity, until
   * {@link #clear}. The caller keeps its reference.
   */
  public void set(ByteBuf buffer) {
    target = buffer;
  }

  /** The next reads go into the usual buffers again. */
  public void clear() {
    target = null;
    handedOut = null;
  }

  /** Whether {@code msg} is a read into the target: a view of it, its bytes written there. */
  public boolean isOwnRead(Object msg) {
    if (msg != null && msg == handedOut) {
      handedOut = null;
      return true;
    }
    return false;
  }

  @Override
  public Handle newHandle() {
    return new TargetHandle((ExtendedHandle) usual.newHandle());
  }

  /** The usual handle's sizing and read counting; only the buffer may be the target's. */
  private final class TargetHandle implements ExtendedHandle {
    private final ExtendedHandle usual;

    TargetHandle(ExtendedHandle usual) {
      this.usual = usual;
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc) {
      ByteBuf into = target;
      if (into == null || !into.isWritable()) {
        return usual.allocate(alloc);
      }
      // Netty reads into [writerIndex, capacity) of what it gets: the unwritten part, wrapped in a
      // view of its own. A slice would do for the epoll transport, which reads to the memory
      // address; NIO reads through the buffer's internal ByteBuffer, which a slice shares with its
      // parent, and the parent (a slab of small blocks) with every block in it, which other event
      // loops write at the same time. The wrapper neither owns nor frees the memory: the handler
      // keeps the target alive until the read was handed on.
      handedOut =
          Unpooled.wrappedBuffer(into.nioBuffer(into.writerIndex(), into.writableBytes())).clear();
      return handedOut;
    }

    @Override
    public int guess() {
      return usual.guess();
    }

    @Override
    public void reset(io.netty.channel.ChannelConfig config) {
      usual.reset(config);
    }

    @Override
    public void incMessagesRead(int numMessages) {
      usual.incMessagesRead(numMessages);
    }

    @Override
    public void lastBytesRead(int bytes) {
      usual.lastBytesRead(bytes);
    }

    @Override
    public int lastBytesRead() {
      return usual.lastBytesRead();
    }

    @Override
    public void attemptedBytesRead(int bytes) {
      usual.attemptedBytesRead(bytes);
    }

    @Override
    public int attemptedBytesRead() {
      return usual.attemptedBytesRead();
    }

    @Override
    public boolean continueReading() {
      return usual.continueReading();
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
      return usual.continueReading(maybeMoreDataSupplier);
    }

    @Override
    public void readComplete() {
      usual.readComplete();
    }
  }
}
