package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;

/**
 * One wire message. A frame on the wire is {@code int32 frameLength | byte type | header | body},
 * where {@code frameLength} counts every byte after itself. The header is this message's own
 * fields, written by {@link #encode(ByteBuf)} in exactly {@link #encodedLength()} bytes; the body,
 * if any, is raw shuffle bytes that pass through untouched.
 *
 * <p>Each message class also has a {@code static decode(ByteBuf)} that reads the header from the
 * frame (positioned after the type byte) and takes the rest of the frame as its body; {@link
 * MessageType} maps the type byte to it.
 */
public interface Message {

  MessageType type();

  /** Length in bytes of the header that {@link #encode(ByteBuf)} writes (not counting the body). */
  int encodedLength();

  /** Writes the header. */
  void encode(ByteBuf out);

  /**
   * The body, or {@code null} when the message has none. Messages with a body extend {@link
   * AbstractBodyMessage}, which is {@code ReferenceCounted} through its body: writing one to a
   * channel hands its reference to the channel, and a receiver that consumes a decoded one releases
   * it ({@code ReferenceCountUtil.release(msg)}).
   */
  default ManagedBuffer body() {
    return null;
  }
}
