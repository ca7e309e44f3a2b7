package io.sluice.server.handler;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportChannel;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.shuffle.RequestRejectedException;
import io.sluice.server.shuffle.ShuffleState;
import io.sluice.server.shuffle.ShuffleStore;
import java.util.List;

/**
 * Takes a push: copies each block once, out of the network's receive buffers, into an exact-size
 * buffer of the push pool, and acknowledges only when every block of the frame is held. When the pool
 * cannot take the whole frame nothing is kept and the client gets the retriable NO_BUFFER answer;
 * when no disk can take data, STORAGE_UNAVAILABLE. Runs on the event loop: a memory copy is all it
 * does.
 */
final class PushHandler {
  private final ShuffleStore store;
  private final PushBufferPool pool;
  private final FlushManager flushManager;
  private final ServerMetrics metrics;

  PushHandler(ShuffleStore store, PushBufferPool pool, FlushManager flushManager,
      ServerMetrics metrics) {
    this.store = store;
    this.pool = pool;
    this.flushManager = flushManager;
    this.metrics = metrics;
  }

  /** Owns {@code push} and releases it on every path. */
  void handle(TransportChannel channel, PushDataRequest push) {
    try {
      channel.respond(store(push));
    } catch (RequestRejectedException e) {
      metrics.pushRejected(e.status().name());
      channel.respond(StatusResponse.error(push.requestId(), e.status(), e.getMessage()));
    } finally {
      push.release();
    }
  }

  private StatusResponse store(PushDataRequest push) {
    ShuffleState shuffle = store.shuffle(push.appId(), push.shuffleId());
    List<BlockDescriptor> blocks = push.blocks();
    for (BlockDescriptor b : blocks) {
      ShuffleStore.checkPartition(shuffle, b.partitionId());
    }
    if (!flushManager.storageAvailable()) {
      throw new RequestRejectedException(StatusCode.STORAGE_UNAVAILABLE,
          "no local directory of this server can take data (all full or failing; see local.dirs "
              + "and disk.min.free)");
    }
    ByteBuf body = ((NettyManagedBuffer) push.body()).byteBuf();
    ByteBuf[] copies = new ByteBuf[blocks.size()];
    int offset = body.readerIndex();
    long bytes = 0;
    for (int i = 0; i < copies.length; i++) {
      int length = blocks.get(i).length();
      ByteBuf copy = pool.tryAllocate(length);
      if (copy == null) {
        for (int j = 0; j < i; j++) {
          pool.free(copies[j]);
        }
        flushManager.requestRound();
        throw new RequestRejectedException(StatusCode.NO_BUFFER, "push memory is full ("
            + pool.usedBytes() + " of " + pool.capacity() + " bytes, buffer.capacity); retry later");
      }
      copies[i] = copy.writeBytes(body, offset, length);
      offset += length;
      bytes += length;
    }
    for (int i = 0; i < copies.length; i++) {
      BlockDescriptor b = blocks.get(i);
      PartitionState partition = shuffle.partition(b.partitionId());
      if (partition.add(b, copies[i])) {
        flushManager.afterPush(partition);
      } else {
        // The shuffle was deleted while this push was in flight: nothing will read it.
        pool.free(copies[i]);
      }
    }
    metrics.pushed(bytes, copies.length);
    return StatusResponse.ok(push.requestId());
  }
}
