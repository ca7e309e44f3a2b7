package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.sluice.common.buffer.ManagedBuffer;
import java.util.List;

/**
 * Writes a {@link Message} as {@code int32 frameLength | byte type | header} in one buffer,
 * followed by the body (if any) as the object its {@link ManagedBuffer} converts to: a {@code
 * ByteBuf}, a {@code FileRegion} (sendfile), or with TLS a {@code ChunkedInput} for a {@code
 * ChunkedWriteHandler} placed before this encoder (nearer the socket). A body of at most {@link
 * #INLINE_BODY_BYTES} in memory is copied into the header's buffer instead: one buffer to write
 * rather than two, each with its outbound entry and the promise that joins them, costs less than
 * copying a small body. Stateless and shared by all channels.
 */
@ChannelHandler.Sharable
public final class MessageEncoder extends MessageToMessageEncoder<Message> {
  static final int INLINE_BODY_BYTES = 1024;

  private final boolean tls;

  /**
   * @param tls whether the pipeline has TLS, where a {@code FileRegion} cannot be written
   */
  public MessageEncoder(boolean tls) {
    super(Message.class);
    this.tls = tls;
  }

  /** The frame's length as its length field gives it: the type byte, the header and the body. */
  public static long frameLength(Message msg) {
    ManagedBuffer body = msg.body();
    return 1L + msg.encodedLength() + (body == null ? 0 : body.size());
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Message msg, List<Object> out) throws Exception {
    ManagedBuffer body = msg.body();
    int headerLength = msg.encodedLength();
    long frameLength = frameLength(msg);
    if (frameLength > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          msg.getClass().getSimpleName() + " of " + frameLength + " bytes does not fit in a frame");
    }
    int inline = body != null && body.size() <= INLINE_BODY_BYTES ? (int) body.size() : 0;
    ByteBuf header = ctx.alloc().buffer(4 + 1 + headerLength + inline);
    Object bodyObject = null;
    try {
      header.writeInt((int) frameLength);
      header.writeByte(msg.type().id());
      int start = header.writerIndex();
      msg.encode(header);
      int written = header.writerIndex() - start;
      if (written != headerLength) {
        throw new IllegalStateException(
            msg.getClass().getName()
                + ".encode wrote "
                + written
                + " bytes but encodedLength() is "
                + headerLength);
      }
      if (body != null) {
        // MessageToMessageEncoder releases the message after encode(), and a body message's
        // reference count is its body's: that release drops the reference the writer handed over.
        // The converted object must own a reference of its own for the channel to release once
        // written, hence this retain, which the conversion takes over.
        body.retain();
        try {
          bodyObject = tls ? body.convertToNettyForTls() : body.convertToNetty();
        } catch (Exception | Error e) {
          body.release();
          throw e;
        }
        if (inline > 0 && bodyObject instanceof ByteBuf small) {
          bodyObject = null;
          try {
            header.writeBytes(small);
          } finally {
            small.release();
          }
        }
      }
    } catch (Exception | Error e) {
      header.release();
      throw e;
    }
    // Added only now: MessageToMessageEncoder writes whatever is in `out` even when encode()
    // throws, and a header without its body would corrupt the stream.
    out.add(header);
    if (bodyObject != null) {
      out.add(bodyObject);
    }
  }
}
