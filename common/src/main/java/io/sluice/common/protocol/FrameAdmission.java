package io.sluice.common.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.ReceiveBudget;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What a server's {@link FrameDecoder} asks before it reads a frame's body: whether the frame's
 * type and length pass the {@link FrameGate} now, then a reservation of the frame's length from the
 * server's {@link ReceiveBudget}, held until the frame was handled. Either may queue the frame; the
 * connection then stops reading (auto-read off) and the {@link Listener} hears when the frame may
 * go on. A reserved frame whose last byte does not arrive within the frame timeout is reported
 * once. One instance per connection; event loop only, but for the gate's and the budget's
 * hand-overs, which come back to the event loop.
 */
final class FrameAdmission {
  /** How the decoder hears that a queued frame may go on, or that a frame overstayed. */
  interface Listener {
    /** The gate let the queued frame in; it still needs its reservation. */
    void gatePassed(ChannelHandlerContext ctx);

    /** The queued reservation was granted. */
    void reserved(ChannelHandlerContext ctx);

    /** The reserved frame did not complete within the frame timeout. */
    void frameTimedOut(ChannelHandlerContext ctx, long elapsedNanos);
  }

  private final ReceiveBudget budget;
  private final FrameGate gate;
  private final long frameTimeoutNanos;
  private final Listener listener;

  /** The current frame's wait at the gate, or null. */
  private GateWait gateWait;

  /** The queued reservation for the current frame, or null. */
  private Grant waitingGrant;

  /** Bytes of the budget this connection holds for the current frame. */
  private long reserved;

  private long frameStartNanos;

  /** Counts the frames this connection reserved; a frame timer fires only for its own frame. */
  private long frameSequence;

  private ScheduledFuture<?> frameTimer;

  FrameAdmission(ReceiveBudget budget, FrameGate gate, Duration frameTimeout, Listener listener) {
    this.budget = budget;
    this.gate = gate;
    this.frameTimeoutNanos = frameTimeout.toNanos();
    this.listener = listener;
  }

  /** Whether a frame waits at the gate or for its reservation. */
  boolean waiting() {
    return gateWait != null || waitingGrant != null;
  }

  /** Bytes reserved for the current frame: 0 or its length. */
  long reservedBytes() {
    return reserved;
  }

  /**
   * Asks the gate about a frame of {@code type} and {@code frameLength}; false when it queued the
   * frame, which then waits at most the gate's longest wait for {@link Listener#gatePassed}.
   */
  boolean passGate(ChannelHandlerContext ctx, MessageType type, int frameLength) {
    if (gate == FrameGate.OPEN) {
      return true;
    }
    GateWait wait = new GateWait(ctx);
    if (gate.admitOrQueue(type, frameLength, wait)) {
      return true;
    }
    gateWait = wait;
    wait.timer =
        ctx.executor().schedule(wait::timedOut, gate.maxWait().toNanos(), TimeUnit.NANOSECONDS);
    return false;
  }

  /** Reserves {@code bytes}, or queues for them ({@link Listener#reserved}) and returns false. */
  boolean reserve(ChannelHandlerContext ctx, int bytes) {
    Grant grant = new Grant(ctx, bytes);
    if (budget.reserveOrQueue(bytes, grant)) {
      frameStarted(bytes);
      return true;
    }
    waitingGrant = grant;
    return false;
  }

  private void frameStarted(long bytes) {
    reserved = bytes;
    frameStartNanos = System.nanoTime();
    frameSequence++;
  }

  /** The current frame was handled: gives its reservation back. */
  void release() {
    if (frameTimer != null) {
      frameTimer.cancel(false);
      frameTimer = null;
    }
    if (reserved > 0) {
      long bytes = reserved;
      reserved = 0;
      budget.release(bytes);
    }
  }

  /**
   * Reads while no frame waits and answers are being taken (a peer that does not read its answers
   * gets no more frames handled); starts the frame timer of a reserved frame still arriving.
   */
  void updateReading(ChannelHandlerContext ctx) {
    boolean read = !waiting() && ctx.channel().isWritable();
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
    }
    if (reserved > 0 && frameTimer == null) {
      // Only a frame that did not arrive whole with the read that started it gets a timer.
      long frame = frameSequence;
      frameTimer =
          ctx.executor()
              .schedule(() -> timedOut(ctx, frame), frameTimeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void timedOut(ChannelHandlerContext ctx, long frame) {
    if (reserved == 0 || frameSequence != frame) {
      return;
    }
    frameTimer = null;
    listener.frameTimedOut(ctx, System.nanoTime() - frameStartNanos);
  }

  /** The connection is done: takes back every wait and gives back every reservation. */
  void discard() {
    if (gateWait != null) {
      // When it was let in already, its hand-over finds that nobody waits for it any more.
      gate.cancel(gateWait);
      gateWait.timer.cancel(false);
      gateWait = null;
    }
    release();
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
      listener.gatePassed(ctx);
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
      frameStarted(bytes);
      listener.reserved(ctx);
    }
  }
}
