package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.ReceiveTarget;
import java.time.Duration;

/**
 * Cuts the inbound byte stream into frames ({@code int32 frameLength | frameLength bytes}) without
 * copying: received buffers are queued as they are ({@link ReceivedBytes}), and a frame is fired as
 * a retained slice of the buffer holding it, or as a {@link CompositeByteBuf} of slices when it
 * spans several reads. The fired frame starts at the type byte (the length field is consumed) and
 * the next handler owns one reference to it and must release it.
 *
 * <p>A length below 1 or above the maximum frame size fires a {@link ProtocolException} (carrying
 * the request id when the bytes after the length already hold it), releases everything held and
 * discards all further input: the stream cannot be resynchronised, the connection is to be closed.
 * Input is also discarded once the channel is closed. One instance per channel.
 *
 * <p>On a server, {@link FrameAdmission} decides when each frame may be taken (its gate, its
 * reservation from the receive budget, the frame timeout) and pauses reading meanwhile; a frame is
 * handed on only once admitted, and its reservation goes back once the next handler returned, which
 * is when the frame was handled (a push is copied into the push pool by then). Received buffers
 * that hold much less than their capacity (a peer sending tiny segments) are merged into one, so
 * that what a connection holds stays within 1.5 times its bytes plus {@link #MAX_UNMERGED_SLACK}.
 *
 * <p>Once a large frame is admitted, a server's decoder with a {@link BodyPlacer} offers it to its
 * {@link FramePlacement}, which may receive its body in place ({@link ReceiveTarget}); the frame is
 * then fired as the message the placement completes to, not as bytes.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
  /** Capacity beyond 1.5 times the queued bytes that is tolerated before queued buffers merge. */
  public static final int MAX_UNMERGED_SLACK = 64 * 1024;

  /** The least of a frame still to come for which the decoder offers it to its placer. */
  public static final int MIN_PLACED_BYTES = 64 * 1024;

  private static final int LENGTH_FIELD_SIZE = 4;

  /** Bytes after the length field that hold the type byte and a request id. */
  private static final int TYPE_AND_REQUEST_ID_SIZE = 1 + 8;

  private final int maxFrameSize;
  private final ReceivedBytes received = new ReceivedBytes();

  /**
   * When a server's connection may take a frame; null on a client, whose reads its requests bound.
   */
  private final FrameAdmission admission;

  /** Whether large frames' bodies are received in place; null without a placer. */
  private final FramePlacement placement;

  /**
   * Length of the frame whose length field was consumed, or -1 while waiting for a length field.
   */
  private int frameLength = -1;

  private boolean discarding;
  private boolean firedFrame;

  /** Whether {@link #decodeFrames} runs: a frame is being handed on further down the pipeline. */
  private boolean decoding;

  /**
   * A client's decoder: no budget, no timeout.
   *
   * @param maxFrameSize the largest acceptable {@code frameLength}, at least 1
   */
  public FrameDecoder(int maxFrameSize) {
    this(maxFrameSize, null, FrameGate.OPEN, Duration.ZERO);
  }

  /**
   * A server's decoder.
   *
   * @param budget the server's receive budget, at least {@code maxFrameSize} large
   * @param gate what may hold a frame back before its reservation
   * @param frameTimeout how long a frame may take from its reservation to its last byte
   */
  public FrameDecoder(
      int maxFrameSize, ReceiveBudget budget, FrameGate gate, Duration frameTimeout) {
    this(maxFrameSize, budget, gate, frameTimeout, null, null);
  }

  /**
   * A server's decoder that may receive large frames' bodies in place.
   *
   * @param placer what may take a frame's body into buffers of its own, or null
   * @param receiveTarget the connection's receive buffers, through which the placer's buffers are
   *     read into; null exactly when {@code placer} is
   */
  public FrameDecoder(
      int maxFrameSize,
      ReceiveBudget budget,
      FrameGate gate,
      Duration frameTimeout,
      BodyPlacer placer,
      ReceiveTarget receiveTarget) {
    if ((placer == null) != (receiveTarget == null)) {
      throw new IllegalArgumentException("a placer needs the connection's receive target");
    }
    if (maxFrameSize < 1) {
      throw new IllegalArgumentException("maxFrameSize must be at least 1: " + maxFrameSize);
    }
    this.placement = placer == null ? null : new FramePlacement(placer, receiveTarget);
    this.maxFrameSize = maxFrameSize;
    this.admission =
        budget == null
            ? null
            : new FrameAdmission(this, received, maxFrameSize, budget, gate, frameTimeout);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (placement != null && placement.isOwnRead(buf)) {
      // The socket read into the placement's buffer: its bytes are there already.
      int n = buf.readableBytes();
      buf.release();
      placement.arrivedInPlace(n);
    } else if (discarding || !buf.isReadable()) {
      buf.release();
      return;
    } else {
      if (placement != null) {
        placement.fill(buf);
      }
      if (buf.isReadable()) {
        // Only a buffer queued on its own adds memory: one copied into a merged buffer does not,
        // and merging again would copy the frame's bytes once per read.
        if (received.add(buf) && admission != null && received.sparse()) {
          boolean withinFrame = admission.reserved() && !placedNow();
          received.merge(ctx.alloc(), withinFrame ? frameLength : -1);
        }
      } else {
        buf.release();
      }
    }
    resume(ctx);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // As ByteToMessageDecoder does: with auto-read off, a read that completed no frame gave the
    // next handler nothing to react to, so ask for more bytes here or the connection stalls
    // mid-frame. On a server auto-read is the admission's own: off means it paused reading on
    // purpose.
    if (admission == null && !firedFrame && !discarding && !ctx.channel().config().isAutoRead()) {
      ctx.read();
    }
    firedFrame = false;
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (admission != null && ctx.channel().isWritable()) {
      resume(ctx);
    }
    ctx.fireChannelWritabilityChanged();
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

  /**
   * Hands on what frames are complete and admitted, then lets the admission set reading. Called
   * again from inside a handler the decoder handed a frame to (its write made the channel writable
   * again, which Netty reports at once), it does nothing: the loop that handed the frame on goes on
   * once the handler returns, after the frame's reservation is given back, so that the next frame
   * is admitted (and reserves) only then.
   */
  void resume(ChannelHandlerContext ctx) {
    if (decoding) {
      return;
    }
    decoding = true;
    try {
      decodeFrames(ctx);
    } finally {
      decoding = false;
    }
    if (admission != null && !discarding) {
      admission.updateReading(ctx);
    }
  }

  /** Bytes of the current frame received so far, for a timeout's log line. */
  long receivedOfFrame() {
    return placedNow() ? frameLength - placement.remaining() : received.bytes();
  }

  private boolean placedNow() {
    return placement != null && placement.receiving();
  }

  /** Drops everything held and closes the connection (a frame that took too long). */
  void close(ChannelHandlerContext ctx) {
    discardAll();
    ctx.close();
  }

  private void decodeFrames(ChannelHandlerContext ctx) {
    while (!discarding) {
      if (admission != null && admission.holdsBack(ctx)) {
        return;
      }
      if (frameLength < 0) {
        if (received.bytes() < LENGTH_FIELD_SIZE) {
          return;
        }
        int length = received.getInt(0);
        if (length < 1 || length > maxFrameSize) {
          rejectLength(ctx, length);
          return;
        }
        received.skip(LENGTH_FIELD_SIZE);
        frameLength = length;
      }
      if (admission != null && !admission.admitted()) {
        if (received.bytes() < 1 || !admission.admit(ctx, frameLength)) {
          return; // the gate judges by the type byte; or the frame was queued
        }
      }
      if (placement != null) {
        placement.offer(received, frameLength);
      }
      Object frame;
      if (placedNow()) {
        if (placement.remaining() > 0) {
          return;
        }
        frame = placement.complete();
      } else {
        if (received.bytes() < frameLength) {
          return;
        }
        frame = received.take(ctx.alloc(), frameLength);
      }
      frameLength = -1;
      if (placement != null) {
        placement.nextFrame();
      }
      if (admission != null) {
        admission.frameTaken();
      }
      firedFrame = true;
      ctx.fireChannelRead(frame);
      // The next handler returned: the frame was handled (or copied, or released) by now.
      if (admission != null) {
        admission.frameHandled();
      }
      if (!ctx.channel().isOpen()) {
        // A handler closed the connection (a protocol error, say): what follows is not to be
        // served.
        discardAll();
      }
    }
  }

  private void rejectLength(ChannelHandlerContext ctx, int length) {
    // A frame that is too large begins with its own type and request id; a frame length below 1
    // means the bytes after it are not this frame's (they may be the next one's).
    boolean hasRequestId =
        length >= 1 && received.bytes() >= LENGTH_FIELD_SIZE + TYPE_AND_REQUEST_ID_SIZE;
    long requestId =
        hasRequestId
            ? received.getLong(LENGTH_FIELD_SIZE + 1)
            : ProtocolException.UNKNOWN_REQUEST_ID;
    discardAll();
    ProtocolException error =
        length < 1
            ? new ProtocolException(
                StatusCode.MALFORMED_FRAME,
                requestId,
                hasRequestId,
                "invalid frame length " + length + ": a frame holds at least its type byte")
            : new ProtocolException(
                StatusCode.FRAME_TOO_LARGE,
                requestId,
                hasRequestId,
                "frame of "
                    + length
                    + " bytes exceeds the maximum frame size of "
                    + maxFrameSize
                    + " bytes ("
                    + ProtocolOptions.MAX_FRAME_SIZE.key()
                    + ")");
    ctx.fireExceptionCaught(error);
  }

  /** Releases everything held; from now on all input is released unread. */
  private void discardAll() {
    discarding = true;
    received.release();
    frameLength = -1;
    if (placement != null) {
      placement.abandon();
    }
    if (admission != null) {
      admission.discard();
    }
  }
}
