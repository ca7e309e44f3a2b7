package io.sluice.common.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.InputStream;

/**
 * A managed buffer over a Netty {@link ByteBuf}. Takes over the caller's reference to {@code buf}.
 */
public final class NettyManagedBuffer extends ManagedBuffer {
  private final ByteBuf buf;

  public NettyManagedBuffer(ByteBuf buf) {
    this.buf = buf;
  }

  @Override
  public long size() {
    return buf.readableBytes();
  }

  /** The buffer itself, without a new reference: callers that keep it must retain it. */
  public ByteBuf byteBuf() {
    return buf;
  }

  @Override
  public InputStream createInputStream() {
    return new ByteBufInputStream(buf.duplicate());
  }

  @Override
  public ManagedBuffer retain() {
    buf.retain();
    return this;
  }

  @Override
  public ManagedBuffer release() {
    buf.release();
    return this;
  }

  @Override
  public int refCnt() {
    return buf.refCnt();
  }

  @Override
  public Object convertToNetty() {
    // The duplicate shares this buffer's reference; the channel's release() is the owner's release.
    return buf.duplicate();
  }

  @Override
  public Object convertToNettyForTls() {
    return convertToNetty();
  }

  @Override
  public String toString() {
    return "NettyManagedBuffer[" + buf + "]";
  }
}
