package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;

/**
 * Cuts the inbound byte stream into frames ({@code int32 frameLength | frameLength bytes}) without
 * copying: received buffers are queued as they are, and a frame is fired as a retained slice of the
 * buffer holding it, or as a {@link CompositeByteBuf} of slices when it spans several reads. The
 * fired frame starts at the type byte (the length field is consumed) and the next handler owns one
 * reference to it and must release it.
 *
 * <p>A length below 1 or above the maximum frame size fires a {@link ProtocolException} (carrying the
 * request id when the bytes after the length already hold it), releases everything held and
 * discards all further input: the stream cannot be resynchronised, the connection is to be closed.
 * Input is also discarded once the channel is closed. One instance per channel.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
  /**
   * The configuration key that sets the maximum frame size, named in the error so the operator knows
   * what to raise. The transport's option for the limit must use this key.
   */

  private static final int LENGTH_FIELD_SIZE = 4;
  /** Bytes after the length field that hold the type byte and a request id. */
  private static final int TYPE_AND_REQUEST_ID_SIZE = 1 + 8;

  private final int maxFrameSize;
  private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>();
  private long pendingBytes;
  /** Length of the frame whose length field was consumed, or -1 while waiting for a length field. */
  private int frameLength = -1;
  private boolean discarding;
  private boolean firedFrame;

  /** @param maxFrameSize the largest acceptable {@code frameLength}, at least 1 */
  public FrameDecoder(int maxFrameSize) {
    if (maxFrameSize < 1) {
      throw new IllegalArgumentException("maxFrameSize must be at least 1: " + maxFrameSize);
    }
    this.maxFrameSize = maxFrameSize;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (discarding || !buf.isReadable()) {
      buf.release();
      return;
    }
    pending.addLast(buf);
    pendingBytes += buf.readableBytes();
    decodeFrames(ctx);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // As ByteToMessageDecoder does: with auto-read off, a read that completed no frame gave the next
    // handler nothing to react to, so ask for more bytes here or the connection stalls mid-frame.
    if (!firedFrame && !discarding && !ctx.channel().config().isAutoRead()) {
      ctx.read();
    }
    firedFrame = false;
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    discardAll();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    discardAll();
  }

  private void decodeFrames(ChannelHandlerContext ctx) {
    while (!discarding) {
      if (frameLength < 0) {
        if (pendingBytes < LENGTH_FIELD_SIZE) {
          return;
        }
        int length = getInt(0);
        if (length < 1 || length > maxFrameSize) {
          rejectLength(ctx, length);
          return;
        }
        skip(LENGTH_FIELD_SIZE);
        frameLength = length;
      }
      if (pendingBytes < frameLength) {
        return;
      }
      ByteBuf frame = takeFrame(ctx, frameLength);
      frameLength = -1;
      firedFrame = true;
      ctx.fireChannelRead(frame);
      if (!ctx.channel().isOpen()) {
        // A handler closed the connection (a protocol error, say): what follows is not to be served.
        discardAll();
      }
    }
  }

  private void rejectLength(ChannelHandlerContext ctx, int length) {
    // A frame that is too large begins with its own type and request id; a frame length below 1
    // means the bytes after it are not this frame's (they may be the next one's).
    boolean hasRequestId =
        length >= 1 && pendingBytes >= LENGTH_FIELD_SIZE + TYPE_AND_REQUEST_ID_SIZE;
    long requestId =
        hasRequestId ? getLong(LENGTH_FIELD_SIZE + 1) : ProtocolException.UNKNOWN_REQUEST_ID;
    discardAll();
    ProtocolException error = length < 1
        ? new ProtocolException(StatusCode.MALFORMED_FRAME, requestId, hasRequestId,
            "invalid frame length " + length + ": a frame holds at least its type byte")
        : new ProtocolException(StatusCode.FRAME_TOO_LARGE, requestId, hasRequestId,
            "frame of " + length + " bytes exceeds the maximum frame size of " + maxFrameSize
                + " bytes (" + ProtocolOptions.MAX_FRAME_SIZE.key() + ")");
    ctx.fireExceptionCaught(error);
  }

  /** Removes the next {@code length} bytes from the queue as one buffer the caller owns. */
  private ByteBuf takeFrame(ChannelHandlerContext ctx, int length) {
    pendingBytes -= length;
    ByteBuf first = pending.peekFirst();
    if (first.readableBytes() >= length) {
      return takeFrom(first, length);
    }
    CompositeByteBuf frame = ctx.alloc().compositeBuffer(piecesSpanned(length));
    int remaining = length;
    while (remaining > 0) {
      ByteBuf piece = pending.peekFirst();
      int n = Math.min(remaining, piece.readableBytes());
      frame.addComponent(true, takeFrom(piece, n));
      remaining -= n;
    }
    return frame;
  }

  /**
   * Takes {@code n} bytes from the head of {@code piece}, the first queued buffer: the buffer itself
   * (our reference handed on) when it is used up, otherwise a retained slice.
   */
  private ByteBuf takeFrom(ByteBuf piece, int n) {
    if (n == piece.readableBytes()) {
      pending.removeFirst();
      return piece;
    }
    return piece.readRetainedSlice(n);
  }

  /** Number of queued buffers the next {@code length} bytes span: the composite never consolidates. */
  private int piecesSpanned(int length) {
    int pieces = 0;
    long covered = 0;
    for (ByteBuf piece : pending) {
      pieces++;
      covered += piece.readableBytes();
      if (covered >= length) {
        break;
      }
    }
    return pieces;
  }

  private int getInt(int offset) {
    int value = 0;
    for (int i = 0; i < 4; i++) {
      value = (value << 8) | getUnsignedByte(offset + i);
    }
    return value;
  }

  private long getLong(int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | getUnsignedByte(offset + i);
    }
    return value;
  }

  /** The byte at {@code offset} from the start of the queued bytes, without consuming anything. */
  private int getUnsignedByte(int offset) {
    int skipped = 0;
    for (ByteBuf piece : pending) {
      int readable = piece.readableBytes();
      if (offset < skipped + readable) {
        return piece.getUnsignedByte(piece.readerIndex() + offset - skipped);
      }
      skipped += readable;
    }
    throw new IllegalStateException(
        "offset " + offset + " beyond the " + pendingBytes + " queued bytes");
  }

  private void skip(int n) {
    pendingBytes -= n;
    int remaining = n;
    while (remaining > 0) {
      ByteBuf piece = pending.peekFirst();
      int step = Math.min(remaining, piece.readableBytes());
      piece.skipBytes(step);
      remaining -= step;
      if (!piece.isReadable()) {
        pending.removeFirst().release();
      }
    }
  }

  /** Releases everything held; from now on all input is released unread. */
  private void discardAll() {
    discarding = true;
    ByteBuf piece;
    while ((piece = pending.pollFirst()) != null) {
      piece.release();
    }
    pendingBytes = 0;
    frameLength = -1;
  }
}
