package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Turns each frame from {@link FrameDecoder} (starting at its type byte) into a {@link Message} and
 * fires it. The frame is released on every path; a decoded message with a body holds its own
 * retained slice of the frame, and whoever consumes the message releases it.
 *
 * <p>An unknown type byte fires a {@link ProtocolException} with {@link
 * StatusCode#UNKNOWN_MESSAGE_TYPE}; a header that cannot be decoded, or a message without a body
 * followed by trailing bytes, one with {@link StatusCode#MALFORMED_FRAME}. Either carries the
 * request id when the frame holds the 8 bytes after the type byte, since every message starts with
 * it. Stateless, so one instance can serve every channel.
 */
@ChannelHandler.Sharable
public final class MessageDecoder extends ChannelInboundHandlerAdapter {

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf frame)) {
      ctx.fireChannelRead(msg);
      return;
    }
    Message message;
    try {
      message = decode(frame);
    } catch (ProtocolException e) {
      ctx.fireExceptionCaught(e);
      return;
    } finally {
      frame.release();
    }
    ctx.fireChannelRead(message);
  }

  private static Message decode(ByteBuf frame) {
    int start = frame.readerIndex();
    boolean hasRequestId = frame.readableBytes() >= 1 + 8;
    long requestId = hasRequestId ? frame.getLong(start + 1) : ProtocolException.UNKNOWN_REQUEST_ID;
    if (!frame.isReadable()) {
      throw new ProtocolException(StatusCode.MALFORMED_FRAME, requestId, false, "empty frame");
    }
    byte typeByte = frame.readByte();
    MessageType type = MessageType.fromByte(typeByte);
    if (type == null) {
      throw new ProtocolException(
          StatusCode.UNKNOWN_MESSAGE_TYPE,
          requestId,
          hasRequestId,
          "unknown message type "
              + (typeByte & 0xFF)
              + " in a frame of "
              + (frame.writerIndex() - start)
              + " bytes");
    }
    Message message;
    try {
      message = type.decode(frame);
    } catch (RuntimeException e) {
      throw new ProtocolException(
          StatusCode.MALFORMED_FRAME,
          requestId,
          hasRequestId,
          "malformed "
              + type
              + " frame of "
              + (frame.writerIndex() - start)
              + " bytes: "
              + reason(e),
          e);
    }
    if (frame.isReadable()) {
      // Only a message without a body can leave bytes: a body takes the rest of the frame. The
      // release is for the body case all the same, so no decoder change can turn this into a leak.
      int left = frame.readableBytes();
      ReferenceCountUtil.release(message);
      throw new ProtocolException(
          StatusCode.MALFORMED_FRAME,
          requestId,
          hasRequestId,
          "malformed " + type + " frame: " + left + " trailing bytes after the message");
    }
    return message;
  }

  private static String reason(RuntimeException e) {
    if (e instanceof CorruptFrameException) {
      return e.getMessage();
    }
    if (e instanceof IndexOutOfBoundsException) {
      return "header cut short (" + e.getMessage() + ")";
    }
    return e.toString();
  }
}
