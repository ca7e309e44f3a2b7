package io.sluice.common.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.LogRateLimiter;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.TransportOptions;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a server's connection may take the frame whose length {@link FrameDecoder} has read: the
 * {@link FrameGate} judges it by its type and length first (holding it back at most the gate's
 * longest wait), then its length is reserved from the server's {@link ReceiveBudget} before its
 * body is read (not when it arrived whole with the bytes already read: those are held already), and
 * given back once the frame was handled. While the gate or the budget holds the frame back, or
 * while the connection's answers pile up unsent (the channel is not writable), the connection is
 * not read and no frame is handed on. A reserved frame not complete within the frame timeout closes
 * the connection. One per connection, on its event loop.
 */
final class FrameAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(FrameAdmission.class);
  private static final LogRateLimiter TIMEOUT_WARNINGS = new LogRateLimiter(10_000);

  private final FrameDecoder decoder;
  private final ReceivedBytes received;
  private final ReceiveBudget budget;
  private final FrameGate gate;
  private final long frameTimeoutNanos;

  /** Length of the frame admitted last (the one being received while it holds a reservation). */
  private int frameLength = -1;

  /** Whether the current frame passed the gate and holds what it needs of the budget. */
  private boolean admitted;

  /** The current frame's wait at the gate, or null. */
  private GateWait gateWait;

  /** The queued reservation for the current frame, or null. */
  private Grant waitingGrant;

  /** Bytes of the budget this connection holds for the current frame: 0 or its length. */
  private long frameReserved;

  private long frameStartNanos;

  /** Counts the frames this connection reserved; a frame timer closes only for its own frame. */
  private long frameSequence;

  private ScheduledFuture<?> frameTimer;

  FrameAdmission(
      FrameDecoder decoder,
      ReceivedBytes received,
      int maxFrameSize,
      ReceiveBudget budget,
      FrameGate gate,
      Duration frameTimeout) {
    if (budget.capacity() < maxFrameSize) {
      throw new IllegalArgumentException(
          "a receive budget of "
              + budget.capacity()
              + " bytes cannot hold a frame of "
              + maxFrameSize
              + " bytes");
    }
    this.decoder = decoder;
    this.received = received;
    this.budget = budget;
    this.gate = gate;
    this.frameTimeoutNanos = frameTimeout.toNanos();
  }

  /** Whether no frame may be handed on now: one is held back, or answers wait unsent. */
  boolean holdsBack(ChannelHandlerContext ctx) {
    return waitingGrant != null || gateWait != null || !ctx.channel().isWritable();
  }

  boolean admitted() {
    return admitted;
  }

  /** Whether the current frame holds a reservation (its bytes are all still to be handed on). */
  boolean reserved() {
    return frameReserved > 0;
  }

  /**
   * Admits the frame of {@code length} bytes at the front of the received bytes, of which the type
   * byte has arrived; false when the gate or the budget queued it (the decoder resumes once it is
   * let in).
   */
  boolean admit(ChannelHandlerContext ctx, int length) {
    frameLength = length;
    return passGate(ctx) && reserve(ctx);
  }

  /** Asks the gate about the current frame; false when it queued the frame. */
  private boolean passGate(ChannelHandlerContext ctx) {
    // Open gates are the common case: no need to find the type byte.
    if (gate == FrameGate.OPEN) {
      return true;
    }
    GateWait wait = new GateWait(ctx);
    if (gate.admitOrQueue(
        MessageType.fromByte((byte) received.getUnsignedByte(0)), frameLength, wait)) {
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
  private boolean reserve(ChannelHandlerContext ctx) {
    admitted = true;
    if (received.bytes() >= frameLength) {
      return true;
    }
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

  /** The current frame is about to be handed on: the next frame is admitted afresh. */
  void frameTaken() {
    admitted = false;
  }

  /** The frame handed on was handled (the next handler returned): gives its reservation back. */
  void frameHandled() {
    releaseReservation();
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

  /** Reads while nothing is held back and answers are being taken; watches the frame's time. */
  void updateReading(ChannelHandlerContext ctx) {
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
    if (frameReserved == 0 || frameSequence != frame) {
      return;
    }
    frameTimer = null;
    long elapsed = System.nanoTime() - frameStartNanos;
    if (TIMEOUT_WARNINGS.tryAcquire()) {
      LOG.warn(
          "Closing connection from {}: {} of a {}-byte frame arrived in {} ms ({}); further "
              + "such closings are not logged for 10 s",
          ctx.channel().remoteAddress(),
          decoder.receivedOfFrame(),
          frameLength,
          TimeUnit.NANOSECONDS.toMillis(elapsed),
          TransportOptions.FRAME_TIMEOUT.key());
    }
    decoder.close(ctx);
  }

  /** Gives back what the connection holds and forgets what it waits for: it is closing. */
  void discard() {
    admitted = false;
    frameLength = -1;
    if (gateWait != null) {
      // When it was let in already, its hand-over finds that nobody waits for it any more.
      gate.cancel(gateWait);
      gateWait.timer.cancel(false);
      gateWait = null;
    }
    releaseReservation();
    if (waitingGrant != null) {
      // When it was granted already, its hand-over, queued on the event loop, finds that nobody
      // waits for it any more and gives the bytes back.
      budget.cancel(waitingGrant);
      waitingGrant = null;
    }
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
      reserve(ctx);
      decoder.resume(ctx);
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
      decoder.resume(ctx);
    }
  }
}
