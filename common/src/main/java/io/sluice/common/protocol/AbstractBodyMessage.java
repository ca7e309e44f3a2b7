package io.sluice.common.protocol;

import io.netty.util.ReferenceCounted;
import io.sluice.common.buffer.ManagedBuffer;

/**
 * Base of messages that carry a body. Reference counting delegates to the body, so Netty's own
 * release-on-failure paths (a write to a closed channel, an encoder exception) free it too.
 */
public abstract class AbstractBodyMessage implements Message, ReferenceCounted {
  private final ManagedBuffer body;

  protected AbstractBodyMessage(ManagedBuffer body) {
    this.body = body;
  }

  @Override
  public final ManagedBuffer body() {
    return body;
  }

  @Override
  public int refCnt() {
    return body.refCnt();
  }

  @Override
  public ReferenceCounted retain() {
    body.retain();
    return this;
  }

  @Override
  public ReferenceCounted retain(int increment) {
    for (int i = 0; i < increment; i++) {
      body.retain();
    }
    return this;
  }

  @Override
  public ReferenceCounted touch() {
    return this;
  }

  @Override
  public ReferenceCounted touch(Object hint) {
    return this;
  }

  @Override
  public boolean release() {
    body.release();
    return body.refCnt() == 0;
  }

  @Override
  public boolean release(int decrement) {
    for (int i = 0; i < decrement; i++) {
      body.release();
    }
    return body.refCnt() == 0;
  }
}
