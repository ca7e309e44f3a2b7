package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.LogRateLimiter;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.ReceiveTarget;
import io.sluice.common.transport.TransportOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the inbound byte stream into frames ({@code int32 frameLength | frameLength bytes}) without
 * copying: received buffers are queued as they are, and a frame is fired as a retained slice of the
 * buffer holding it, or as a {@link CompositeByteBuf} of slices when it spans several reads. The
 * fired frame starts at the type byte (the length field is consumed) and the next handler owns one
 * reference to it and must release it.
 *
 * <p>A length below 1 or above the maximum frame size fires a {@link ProtocolException} (carrying
 * the request id when the bytes after the length already hold it), releases everything held and
 * discards all further input: the stream cannot be resynchronised, the connection is to be closed.
 * Input is also discarded once the channel is closed. One instance per channel.
 *
 * <p>On a server the decoder also bounds what the connection holds ({@link ReceiveBudget}): it
 * reserves each frame's length from the server's budget before reading the frame's body (unless the
 * frame arrived whole with the bytes already read) and gives it back once the next handler
 * returned, which is when the frame was handled (a push is copied into the push pool by then);
 * while its reservation is queued, or while the connection's answers are piling up unsent (the
 * channel is not writable), it stops reading and hands no frame on. A frame not complete within the
 * frame timeout closes the connection. Received buffers that hold much less than their capacity (a
 * peer sending tiny segments) are merged into one, so that what a connection holds stays within 1.5
 * times its bytes plus {@link ReceivedBytes#MAX_UNMERGED_SLACK}.
 *
 * <p>Before reserving, a server's decoder asks its {@link FrameGate} whether the frame, by its type
 * and length, can be taken now; while the gate holds it back (at most the gate's longest wait) the
 * connection is not read and holds no reservation.
 *
 * <p>This class cuts frames and decides when to hand them on; the received buffers are kept by
 * {@link ReceivedBytes}, the gate, the reservation and the frame timeout by {@link FrameAdmission}.
 *
 * <p>Once a large frame is reserved, a server's decoder may offer it to a {@link BodyPlacer}: when
 * the placer takes it, the bytes of the frame already received are copied into the placer's buffers
 * and the socket reads the rest straight into them ({@link ReceiveTarget}); the frame is then fired
 * as the message the placement completes to, not as bytes. A frame is offered only while its
 * received bytes are one buffer and at least {@link #MIN_PLACED_BYTES} are still to come.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);
  private static final LogRateLimiter TIMEOUT_WARNINGS = new LogRateLimiter(10_000);

  /** The least of a frame still to come for which the decoder offers it to its placer. */
  public static final int MIN_PLACED_BYTES = 64 * 1024;

  private static final int LENGTH_FIELD_SIZE = 4;

  /** Bytes after the length field that hold the type byte and a request id. */
  private static final int TYPE_AND_REQUEST_ID_SIZE = 1 + 8;

  private final int maxFrameSize;

  /** The server's gate and receive budget, or null on a client, whose reads its requests bound. */
  private final FrameAdmission admission;

  /** Where large frames' bodies may be received in place, or null; with {@link #receiveTarget}. */
  private final BodyPlacer placer;

  private final ReceiveTarget receiveTarget;
  private final ReceivedBytes received = new ReceivedBytes();

  /**
   * Length of the frame whose length field was consumed, or -1 while waiting for a length field.
   */
  private int frameLength = -1;

  /** Whether the current frame passed the gate (always, on a client). */
  private boolean frameAdmitted;

  /** Whether the current frame was offered to the placer for good. */
  private boolean placementDecided;

  /** The current frame's body when it is received in place, or null. */
  private PlacedBody placed;

  private boolean discarding;
  private boolean firedFrame;

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
    this.placer = placer;
    this.receiveTarget = receiveTarget;
    if (maxFrameSize < 1) {
      throw new IllegalArgumentException("maxFrameSize must be at least 1: " + maxFrameSize);
    }
    if (budget != null && budget.capacity() < maxFrameSize) {
      throw new IllegalArgumentException(
          "a receive budget of "
              + budget.capacity()
              + " bytes cannot hold a frame of "
              + maxFrameSize
              + " bytes");
    }
    this.maxFrameSize = maxFrameSize;
    this.admission =
        budget == null
            ? null
            : new FrameAdmission(budget, gate, frameTimeout, new AdmissionEvents());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (placed != null && placed.isOwnRead(buf)) {
      // The socket read into the placement's buffer: its bytes are there already.
      int n = buf.readableBytes();
      buf.release();
      placed.arrivedInPlace(n);
    } else if (discarding || !buf.isReadable()) {
      buf.release();
      return;
    } else {
      if (placed != null) {
        placed.fill(buf);
      }
      if (buf.isReadable()) {
        enqueue(ctx, buf);
      } else {
        buf.release();
      }
    }
    decodeFrames(ctx);
    updateReading(ctx);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // As ByteToMessageDecoder does: with auto-read off, a read that completed no frame gave the
    // next handler nothing to react to, so ask for more bytes here or the connection stalls
    // mid-frame. On a server auto-read is this decoder's own: off means it paused reading on
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
      decodeFrames(ctx);
      updateReading(ctx);
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

  private void enqueue(ChannelHandlerContext ctx, ByteBuf buf) {
    if (received.add(buf) && admission != null && received.wasteful()) {
      // Sized for the rest of the current frame when the bytes all belong to it (and it is not
      // received in place): the frame's later bytes are then copied in as they arrive.
      boolean intoFrame = admission.reservedBytes() > 0 && placed == null;
      received.merge(ctx.alloc(), intoFrame ? frameLength : -1);
    }
  }

  private void decodeFrames(ChannelHandlerContext ctx) {
    while (!discarding && (admission == null || !admission.waiting())) {
      if (admission != null && !ctx.channel().isWritable()) {
        // Answers wait unsent: the peer does not read them. Hand nothing more on until it does.
        return;
      }
      if (frameLength < 0) {
        if (received.readableBytes() < LENGTH_FIELD_SIZE) {
          return;
        }
        int length = received.getInt(0);
        if (length < 1 || length > maxFrameSize) {
          rejectLength(ctx, length);
          return;
        }
        received.skip(LENGTH_FIELD_SIZE);
        frameLength = length;
        frameAdmitted = admission == null;
      }
      if (!frameAdmitted) {
        if (received.readableBytes() < 1) {
          return; // the gate judges by the type byte
        }
        MessageType type = MessageType.fromByte((byte) received.getUnsignedByte(0));
        if (!admission.passGate(ctx, type, frameLength) || !admitted(ctx)) {
          return;
        }
      }
      if (placer != null && !placementDecided && placed == null) {
        offerToPlacer();
      }
      Object frame;
      if (placed != null) {
        if (placed.remaining() > 0) {
          return;
        }
        PlacedBody done = placed;
        placed = null;
        frame = done.complete();
      } else {
        if (received.readableBytes() < frameLength) {
          return;
        }
        frame = received.take(frameLength, ctx.alloc());
      }
      frameLength = -1;
      frameAdmitted = false;
      placementDecided = false;
      firedFrame = true;
      ctx.fireChannelRead(frame);
      // The next handler returned: the frame was handled (or copied, or released) by now.
      if (admission != null) {
        admission.release();
      }
      if (!ctx.channel().isOpen()) {
        // A handler closed the connection (a protocol error, say): what follows is not to be
        // served.
        discardAll();
      }
    }
  }

  /**
   * Offers the current frame to the placer once its first bytes are one buffer and much of it is
   * still to come; when placed, moves what arrived into the placement and points the socket's next
   * read at it.
   */
  private void offerToPlacer() {
    if (received.pieceCount() != 1 || frameLength - received.readableBytes() < MIN_PLACED_BYTES) {
      // Little to come (nothing to gain), or a start split over buffers (the placer reads one).
      placementDecided = true;
      return;
    }
    ByteBuf first = received.first();
    BodyPlacer.Placement offered =
        placer.place(first.slice(first.readerIndex(), first.readableBytes()), frameLength);
    placementDecided = true;
    if (offered == null) {
      return;
    }
    int header = offered.headerLength();
    if (header < 1 || header > received.readableBytes()) {
      offered.abandon();
      throw new IllegalStateException(
          "a placement of a "
              + frameLength
              + "-byte frame took "
              + header
              + " bytes of header, of "
              + received.readableBytes()
              + " received");
    }
    placed = new PlacedBody(offered, frameLength - header, receiveTarget);
    received.skip(header);
    // What is left holds only this frame's bytes: fewer than the frame had arrived.
    received.moveInto(placed);
  }

  /**
   * The current frame passed the gate: reserves it, or queues for it and returns false. A frame
   * that arrived whole needs no reservation: its bytes are held already, within the read's worth
   * each connection may hold besides the budget, and waiting would only keep small requests (a
   * handshake, a commit, a read) behind large frames still to come.
   */
  private boolean admitted(ChannelHandlerContext ctx) {
    frameAdmitted = true;
    return received.readableBytes() >= frameLength || admission.reserve(ctx, frameLength);
  }

  private void updateReading(ChannelHandlerContext ctx) {
    if (admission != null && !discarding) {
      admission.updateReading(ctx);
    }
  }

  /** What the admission reports back: a queued frame may go on, or a frame overstayed. */
  private final class AdmissionEvents implements FrameAdmission.Listener {
    @Override
    public void gatePassed(ChannelHandlerContext ctx) {
      admitted(ctx);
      decodeFrames(ctx);
      updateReading(ctx);
    }

    @Override
    public void reserved(ChannelHandlerContext ctx) {
      decodeFrames(ctx);
      updateReading(ctx);
    }

    @Override
    public void frameTimedOut(ChannelHandlerContext ctx, long elapsedNanos) {
      if (TIMEOUT_WARNINGS.tryAcquire()) {
        LOG.warn(
            "Closing connection from {}: {} of a {}-byte frame arrived in {} ms ({}); further "
                + "such closings are not logged for 10 s",
            ctx.channel().remoteAddress(),
            placed != null ? frameLength - placed.remaining() : received.readableBytes(),
            frameLength,
            TimeUnit.NANOSECONDS.toMillis(elapsedNanos),
            TransportOptions.FRAME_TIMEOUT.key());
      }
      discardAll();
      ctx.close();
    }
  }

  private void rejectLength(ChannelHandlerContext ctx, int length) {
    // A frame that is too large begins with its own type and request id; a frame length below 1
    // means the bytes after it are not this frame's (they may be the next one's).
    boolean hasRequestId =
        length >= 1 && received.readableBytes() >= LENGTH_FIELD_SIZE + TYPE_AND_REQUEST_ID_SIZE;
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
    received.releaseAll();
    frameLength = -1;
    frameAdmitted = false;
    placementDecided = false;
    if (placed != null) {
      PlacedBody abandoned = placed;
      placed = null;
      abandoned.abandon();
    }
    if (admission != null) {
      admission.discard();
    }
  }
}
