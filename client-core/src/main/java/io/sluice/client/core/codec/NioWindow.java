package io.sluice.client.core.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * One contiguous {@link ByteBuffer} over a range of a {@link ByteBuf}, for native codecs. It
 * aliases the buffer's own memory whenever it can. Otherwise (a composite buffer of several
 * components, a heap buffer where a direct one is needed, a read-only heap buffer) the range is
 * staged in a pooled direct buffer: copied in for reading, copied back by {@link #commit} for
 * writing. {@link #close} releases the staging buffer.
 */
final class NioWindow implements AutoCloseable {
  private final ByteBuf target;
  private final int index;
  private final ByteBuf staging;
  private final ByteBuffer nio;

  private NioWindow(ByteBuf target, int index, ByteBuf staging, ByteBuffer nio) {
    this.target = target;
    this.index = index;
    this.staging = staging;
    this.nio = nio;
  }

  /** A window on bytes {@code [index, index + length)} of {@code buf} that a codec reads. */
  static NioWindow forReading(ByteBuf buf, int index, int length, boolean direct) {
    if (aliasable(buf, direct)) {
      return new NioWindow(buf, index, null, buf.nioBuffer(index, length));
    }
    ByteBuf staging = buf.alloc().directBuffer(length, length);
    try {
      staging.writeBytes(buf, index, length);
      return new NioWindow(buf, index, staging, staging.nioBuffer(0, length));
    } catch (RuntimeException | Error e) {
      staging.release();
      throw e;
    }
  }

  /**
   * A window on bytes {@code [index, index + length)} of {@code buf} that a codec writes; the range
   * must be within {@code buf}'s capacity. Call {@link #commit} with the count written.
   */
  static NioWindow forWriting(ByteBuf buf, int index, int length, boolean direct) {
    if (aliasable(buf, direct)) {
      return new NioWindow(buf, index, null, buf.nioBuffer(index, length));
    }
    ByteBuf staging = buf.alloc().directBuffer(length, length);
    try {
      return new NioWindow(buf, index, staging, staging.nioBuffer(0, length));
    } catch (RuntimeException | Error e) {
      staging.release();
      throw e;
    }
  }

  /**
   * Whether {@code buf}'s own NIO buffer can be handed to native code: one buffer, direct, or
   * backed by an array where the codec takes arrays. A read-only heap buffer exposes neither
   * address nor array, and native codecs would fall back to slower Java code for it, so it is
   * staged too.
   */
  private static boolean aliasable(ByteBuf buf, boolean direct) {
    return buf.nioBufferCount() == 1 && (buf.isDirect() || (!direct && buf.hasArray()));
  }

  /** The window, from position 0; codecs address it by absolute offsets. */
  ByteBuffer nio() {
    return nio;
  }

  /** Makes the first {@code length} bytes written to the window visible in the target buffer. */
  void commit(int length) {
    if (staging != null) {
      target.setBytes(index, staging, 0, length);
    }
  }

  @Override
  public void close() {
    if (staging != null) {
      staging.release();
    }
  }
}
