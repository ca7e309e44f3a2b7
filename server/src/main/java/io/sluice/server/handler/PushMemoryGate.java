package io.sluice.server.handler;

import io.sluice.common.protocol.MessageType;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.TransportChannel;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.replication.ReplicaForwarder;
import java.time.Duration;

/**
 * One connection's gate: holds a push frame back, unread, while the push pool is short of room (it
 * refused a push, and has not freed the frame's length since) and flushes under way will make some
 * ({@code buffer.push.wait}). Back-pressure then costs the network nothing: the push waits in its
 * client's socket instead of being received whole, refused with NO_BUFFER and sent again.
 *
 * <p>Read at once, and taken or refused as before: a push that no flush will make room for (no
 * flush queued or running, or no storage that takes data), one that waited the longest wait, and
 * every push forwarded by another server ({@link ReplicaForwarder#CLIENT_ID_PREFIX}). The sender of
 * a forward holds its copies in its own pool until this server answers, and forwards share one
 * connection: held there, they would wait one after another, and two servers forwarding to each
 * other would each hold what the other needs answered to free memory.
 */
final class PushMemoryGate implements FrameGate {
  private final PushBufferPool pool;
  private final FlushManager flushManager;
  private final ServerMetrics metrics;
  private final Duration maxWait;
  private final TransportChannel channel;

  PushMemoryGate(
      PushBufferPool pool,
      FlushManager flushManager,
      ServerMetrics metrics,
      Duration maxWait,
      TransportChannel channel) {
    this.pool = pool;
    this.flushManager = flushManager;
    this.metrics = metrics;
    this.maxWait = maxWait;
    this.channel = channel;
  }

  @Override
  public boolean admitOrQueue(MessageType type, int frameLength, Runnable resume) {
    if (type != MessageType.PUSH_DATA_REQUEST
        || maxWait.isZero()
        || frameLength > pool.capacity()
        || channel.clientId().startsWith(ReplicaForwarder.CLIENT_ID_PREFIX)) {
      return true;
    }
    if (flushManager.queuedFlushes() == 0 || !flushManager.storageAvailable()) {
      return true; // no flush is coming to make room: the push is taken or refused now
    }
    if (pool.hasRoomOrQueue(frameLength, resume)) {
      return true;
    }
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
