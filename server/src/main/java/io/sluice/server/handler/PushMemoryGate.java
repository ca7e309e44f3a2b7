package io.sluice.server.handler;

import io.sluice.common.protocol.MessageType;
import io.sluice.common.transport.FrameGate;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import java.time.Duration;

/**
 * Holds a push frame back, unread, while the push pool is short of room (it could not place a
 * push, and has not freed the frame's length since) and flushes under way will make some
 * ({@code buffer.push.wait}). Back-pressure then costs the network nothing: the push waits in its
 * client's socket instead of being received whole, refused with NO_BUFFER and sent again. A push
 * that no flush will make room for (the pool below its high watermark, nothing being flushed), or
 * that waited the longest wait, is read and taken or refused as before.
 */
final class PushMemoryGate implements FrameGate {
  private final PushBufferPool pool;
  private final FlushManager flushManager;
  private final ServerMetrics metrics;
  private final Duration maxWait;

  PushMemoryGate(PushBufferPool pool, FlushManager flushManager, ServerMetrics metrics,
      Duration maxWait) {
    this.pool = pool;
    this.flushManager = flushManager;
    this.metrics = metrics;
    this.maxWait = maxWait;
  }

  @Override
  public boolean admitOrQueue(MessageType type, int frameLength, Runnable resume) {
    if (type != MessageType.PUSH_DATA_REQUEST || maxWait.isZero()
        || frameLength > pool.capacity()) {
      return true;
    }
    if (!pool.mayNeedFlush() && flushManager.queuedFlushes() == 0) {
      return true; // no flush is coming to make room: the push is taken or refused now
    }
    if (pool.hasRoomOrQueue(frameLength, resume)) {
      return true;
    }
    flushManager.requestRound();
    metrics.pushWaited();
    return false;
  }

  @Override
  public boolean cancel(Runnable resume) {
    boolean cancelled = pool.cancelRoomWait(resume);
    if (cancelled) {
      metrics.pushWaitExpired();
    }
    return cancelled;
  }

  @Override
  public Duration maxWait() {
    return maxWait;
  }
}
