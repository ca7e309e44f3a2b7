package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.LogRateLimiter;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.ReceiveTarget;
import io.sluice.common.transport.TransportOptions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
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
 * times its bytes plus {@link #MAX_UNMERGED_SLACK}.
 *
 * <p>Before reserving, a server's decoder asks its {@link FrameGate} whether the frame, by its type
 * and length, can be taken now; while the gate holds it back (at most the gate's longest wait) the
 * connection is not read and holds no reservation.
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

  /** Capacity beyond 1.5 times the queued bytes that is tolerated before queued buffers merge. */
  public static final int MAX_UNMERGED_SLACK = 64 * 1024;

  /** The least of a frame still to come for which the decoder offers it to its placer. */
  public static final int MIN_PLACED_BYTES = 64 * 1024;

  private static final int LENGTH_FIELD_SIZE = 4;

  /** Bytes after the length field that hold the type byte and a request id. */
  private static final int TYPE_AND_REQUEST_ID_SIZE = 1 + 8;

  private final int maxFrameSize;

  /** The server's receive budget, or null on a client, whose reads are bounded by its requests. */
  private final ReceiveBudget budget;

  private final FrameGate gate;

  /** Where large frames' bodies may be received in place, or null; with {@link #receiveTarget}. */
  private final BodyPlacer placer;

  private final ReceiveTarget receiveTarget;
  private final long frameTimeoutNanos;
  private final ArrayDeque<ByteBuf> pending = new ArrayDeque<>();
  private long pendingBytes;

  /** Sum of the capacities of the queued buffers: the memory they hold. */
  private long pendingCapacity;

  /**
   * Length of the frame whose length field was consumed, or -1 while waiting for a length field.
   */
  private int frameLength = -1;

  /** Whether the current frame passed the gate (always, on a client). */
  private boolean frameAdmitted;

  /** The current frame's wait at the gate, or null. */
  private GateWait gateWait;

  /** Bytes of the budget this connection holds for the current frame: 0 or {@code frameLength}. */
  private long frameReserved;

  private long frameStartNanos;

  /** Counts the frames this connection reserved; a frame timer closes only for its own frame. */
  private long frameSequence;

  /** The queued reservation for the current frame, or null. */
  private Grant waitingGrant;

  /**
   * The last queued buffer when it was made by merging and the current frame's bytes go into it.
   */
  private ByteBuf mergeTarget;

  private ScheduledFuture<?> frameTimer;

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
    this.budget = budget;
    this.gate = gate;
    this.frameTimeoutNanos = frameTimeout.toNanos();
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
    if (budget == null && !firedFrame && !discarding && !ctx.channel().config().isAutoRead()) {
      ctx.read();
    }
    firedFrame = false;
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (budget != null && ctx.channel().isWritable()) {
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
    if (mergeTarget != null) {
      int n = Math.min(buf.readableBytes(), mergeTarget.writableBytes());
      mergeTarget.writeBytes(buf, n);
      pendingBytes += n;
      if (!buf.isReadable()) {
        buf.release();
        return;
      }
      mergeTarget = null;
    }
    pending.addLast(buf);
    pendingBytes += buf.readableBytes();
    pendingCapacity += buf.capacity();
    if (budget != null && pendingCapacity > pendingBytes + pendingBytes / 2 + MAX_UNMERGED_SLACK) {
      merge(ctx);
    }
  }

  /**
   * Copies the queued bytes into one buffer, sized for the rest of the current frame when they all
   * belong to it (later bytes of the frame are then copied in as they arrive), and frees the rest.
   */
  private void merge(ChannelHandlerContext ctx) {
    boolean withinFrame = frameReserved > 0 && placed == null && pendingBytes <= frameLength;
    int capacity = (int) (withinFrame ? frameLength : pendingBytes);
    ByteBuf merged = ctx.alloc().directBuffer(capacity, capacity);
    ByteBuf piece;
    while ((piece = pending.pollFirst()) != null) {
      merged.writeBytes(piece);
      piece.release();
    }
    pending.addLast(merged);
    pendingCapacity = merged.capacity();
    mergeTarget = withinFrame && merged.isWritable() ? merged : null;
  }

  private void decodeFrames(ChannelHandlerContext ctx) {
    while (!discarding && waitingGrant == null && gateWait == null) {
      if (budget != null && !ctx.channel().isWritable()) {
        // Answers wait unsent: the peer does not read them. Hand nothing more on until it does.
        return;
      }
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
        frameAdmitted = budget == null;
      }
      if (!frameAdmitted) {
        if (pendingBytes < 1) {
          return; // the gate judges by the type byte
        }
        if (!passGate(ctx) || !admitted(ctx)) {
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
        if (pendingBytes < frameLength) {
          return;
        }
        frame = takeFrame(ctx, frameLength);
      }
      frameLength = -1;
      frameAdmitted = false;
      placementDecided = false;
      firedFrame = true;
      ctx.fireChannelRead(frame);
      // The next handler returned: the frame was handled (or copied, or released) by now.
      releaseReservation();
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
    if (pending.size() != 1 || frameLength - pendingBytes < MIN_PLACED_BYTES) {
      // Little to come (nothing to gain), or a start split over buffers (the placer reads one).
      placementDecided = true;
      return;
    }
    ByteBuf first = pending.peekFirst();
    BodyPlacer.Placement offered =
        placer.place(first.slice(first.readerIndex(), first.readableBytes()), frameLength);
    placementDecided = true;
    if (offered == null) {
      return;
    }
    int header = offered.headerLength();
    if (header < 1 || header > pendingBytes) {
      offered.abandon();
      throw new IllegalStateException(
          "a placement of a "
              + frameLength
              + "-byte frame took "
              + header
              + " bytes of header, of "
              + pendingBytes
              + " received");
    }
    placed = new PlacedBody(offered, frameLength - header, receiveTarget);
    skip(header);
    // What is left holds only this frame's bytes: fewer than the frame had arrived.
    ByteBuf piece;
    while ((piece = pending.pollFirst()) != null) {
      placed.fill(piece);
      piece.release();
    }
    pendingBytes = 0;
    pendingCapacity = 0;
    mergeTarget = null;
  }

  /** Asks the gate about the current frame; false when it queued the frame. */
  private boolean passGate(ChannelHandlerContext ctx) {
    if (gate == FrameGate.OPEN) {
      return true;
    }
    GateWait wait = new GateWait(ctx);
    if (gate.admitOrQueue(MessageType.fromByte((byte) getUnsignedByte(0)), frameLength, wait)) {
      return true;
    }
    gateWait = wait;
    wait.timer =
        ctx.executor().schedule(wait::timedOut, gate.maxWait().toNanos(), TimeUnit.NANOSECONDS);
    return false;
  }

  /**
   * The current frame passed the gate: reserves it, or queues for it and returns false. A frame
   * that arrived whole needs no reservation: its bytes are held already, within the read's worth
   * each connection may hold besides the budget, and waiting would only keep small requests (a
   * handshake, a commit, a read) behind large frames still to come.
   */
  private boolean admitted(ChannelHandlerContext ctx) {
    frameAdmitted = true;
    return pendingBytes >= frameLength || reserveFrame(ctx);
  }

  /** Reserves the current frame's length, or queues for it and returns false. */
  private boolean reserveFrame(ChannelHandlerContext ctx) {
    Grant grant = new Grant(ctx, frameLength);
    if (budget.reserveOrQueue(frameLength, grant)) {
      frameStarted();
      return true;
    }
    waitingGrant = grant;
    return false;
  }

  private void frameStarted() {
    frameReserved = frameLength;
    frameStartNanos = System.nanoTime();
    frameSequence++;
  }

  private void releaseReservation() {
    if (frameTimer != null) {
      frameTimer.cancel(false);
      frameTimer = null;
    }
    if (frameReserved > 0) {
      long bytes = frameReserved;
      frameReserved = 0;
      budget.release(bytes);
    }
  }

  /** Reads while no reservation is queued and answers are being taken; watches the frame's time. */
  private void updateReading(ChannelHandlerContext ctx) {
    if (budget == null || discarding) {
      return;
    }
    boolean read = waitingGrant == null && gateWait == null && ctx.channel().isWritable();
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
    }
    if (frameReserved > 0 && frameTimer == null) {
      // Only a frame that did not arrive whole with the read that started it gets a timer.
      long frame = frameSequence;
      frameTimer =
          ctx.executor()
              .schedule(() -> frameTimedOut(ctx, frame), frameTimeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void frameTimedOut(ChannelHandlerContext ctx, long frame) {
    if (discarding || frameReserved == 0 || frameSequence != frame) {
      return;
    }
    frameTimer = null;
    long elapsed = System.nanoTime() - frameStartNanos;
    if (TIMEOUT_WARNINGS.tryAcquire()) {
      LOG.warn(
          "Closing connection from {}: {} of a {}-byte frame arrived in {} ms ({}); further "
              + "such closings are not logged for 10 s",
          ctx.channel().remoteAddress(),
          placed != null ? frameLength - placed.remaining() : pendingBytes,
          frameLength,
          TimeUnit.NANOSECONDS.toMillis(elapsed),
          TransportOptions.FRAME_TIMEOUT.key());
    }
    discardAll();
    ctx.close();
  }

  /** A frame held back by the gate. */
  private final class GateWait implements Runnable {
    private final ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;

    GateWait(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    /** The gate lets the frame in; runs on whichever thread made room. */
    @Override
    public void run() {
      try {
        ctx.executor().execute(this::proceed);
      } catch (RejectedExecutionException e) {
        // The event loop is gone, and the connection with it; the wait held nothing.
      }
    }

    void timedOut() {
      if (gateWait == this && gate.cancel(this)) {
        proceed();
      }
    }

    private void proceed() {
      if (gateWait != this) {
        return; // the connection was discarded meanwhile
      }
      gateWait = null;
      timer.cancel(false);
      admitted(ctx);
      decodeFrames(ctx);
      updateReading(ctx);
    }
  }

  /** A queued reservation; once granted it owns {@code bytes} of the budget. */
  private final class Grant implements ReceiveBudget.Waiter {
    private final ChannelHandlerContext ctx;
    private final long bytes;

    Grant(ChannelHandlerContext ctx, long bytes) {
      this.ctx = ctx;
      this.bytes = bytes;
    }

    @Override
    public void granted() {
      try {
        ctx.executor().execute(this::onEventLoop);
      } catch (RejectedExecutionException e) {
        budget.release(bytes); // the event loop is gone: so is the connection
      }
    }

    private void onEventLoop() {
      if (waitingGrant != this) {
        budget.release(bytes); // the connection was discarded while the grant was on its way
        return;
      }
      waitingGrant = null;
      frameStarted();
      decodeFrames(ctx);
      updateReading(ctx);
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
   * Takes {@code n} bytes from the head of {@code piece}, the first queued buffer: the buffer
   * itself (our reference handed on) when it is used up, otherwise a retained slice.
   */
  private ByteBuf takeFrom(ByteBuf piece, int n) {
    if (n == piece.readableBytes()) {
      pending.removeFirst();
      pendingCapacity -= piece.capacity();
      if (piece == mergeTarget) {
        mergeTarget = null;
      }
      return piece;
    }
    return piece.readRetainedSlice(n);
  }

  /**
   * Number of queued buffers the next {@code length} bytes span: the composite never consolidates.
   */
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
      if (!piece.isReadable() && piece != mergeTarget) {
        pending.removeFirst();
        pendingCapacity -= piece.capacity();
        piece.release();
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
    pendingCapacity = 0;
    mergeTarget = null;
    frameLength = -1;
    frameAdmitted = false;
    placementDecided = false;
    if (placed != null) {
      PlacedBody abandoned = placed;
      placed = null;
      abandoned.abandon();
    }
    if (frameTimer != null) {
      frameTimer.cancel(false);
      frameTimer = null;
    }
    if (gateWait != null) {
      // When it was let in already, its hand-over finds that nobody waits for it any more.
      gate.cancel(gateWait);
      gateWait.timer.cancel(false);
      gateWait = null;
    }
    if (budget != null) {
      releaseReservation();
      if (waitingGrant != null) {
        // When it was granted already, its hand-over, queued on the event loop, finds that nobody
        // waits for it any more and gives the bytes back.
        budget.cancel(waitingGrant);
        waitingGrant = null;
      }
    }
  }
}
