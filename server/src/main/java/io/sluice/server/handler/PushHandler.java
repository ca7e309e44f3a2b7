package io.sluice.server.handler;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.NetworkErrors;
import io.sluice.common.transport.TransportChannel;
import io.sluice.server.ServerOptions;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.replication.ReplicaForwarder;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.shuffle.RequestRejectedException;
import io.sluice.server.shuffle.ShuffleState;
import io.sluice.server.shuffle.ShuffleStore;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Takes a push: copies each block once, out of the network's receive buffers, into an exact-size
 * buffer of the push pool (unless the socket read it into one already: {@link PushPlacer}), and
 * checks the block against its CRC32C (a mismatch refuses the whole push with CORRUPT_BLOCK). When
 * the pool cannot take the whole frame nothing is kept and the client gets the retriable NO_BUFFER
 * answer; when no disk can take data, STORAGE_UNAVAILABLE. Partitions that carry a replica chain
 * are forwarded to the chain's next server from those copies, and the blocks are kept and
 * acknowledged only once every next server acknowledged: what this server acknowledges, every
 * server of the chain holds. Runs on the event loop: a memory copy is all it does before answering
 * or forwarding.
 */
final class PushHandler {
  private final ShuffleStore store;
  private final PushBufferPool pool;
  private final FlushManager flushManager;
  private final ReplicaForwarder forwarder;
  private final ServerMetrics metrics;

  PushHandler(
      ShuffleStore store,
      PushBufferPool pool,
      FlushManager flushManager,
      ReplicaForwarder forwarder,
      ServerMetrics metrics) {
    this.store = store;
    this.pool = pool;
    this.flushManager = flushManager;
    this.forwarder = forwarder;
    this.metrics = metrics;
  }

  /** Owns {@code push} and releases it on every path. */
  void handle(TransportChannel channel, PushDataRequest push) {
    ByteBuf[] copies;
    ShuffleState shuffle;
    try {
      // A placed push was admitted when its header arrived; admitted again now, as its shuffle
      // may have been unregistered (or the server begun draining) while its body arrived.
      shuffle =
          admit(
              push.appId(),
              push.shuffleId(),
              push.replicaChains(),
              push.blocks(),
              push.body().size());
      if (push.body() instanceof PlacedBlocks placed) {
        copies = checkPlaced(push.blocks(), placed.crcs(), placed.take());
        metrics.receivedInPlace(push.body().size());
      } else {
        copies = copy(push);
      }
    } catch (RequestRejectedException e) {
      refused(channel, push.requestId(), e);
      return;
    } finally {
      push.release();
    }
    List<ReplicaChain> chains = push.replicaChains();
    Set<Integer> lastCopies = lastCopies(chains);
    if (forwardsNothing(chains)) {
      keep(shuffle, push.blocks(), copies, lastCopies);
      channel.respond(StatusResponse.ok(push.requestId()));
      return;
    }
    forwarder
        .forward(push.appId(), push.shuffleId(), chains, push.blocks(), copies)
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                keep(shuffle, push.blocks(), copies, lastCopies);
                metrics.replicated(forwardedBytes(chains, push.blocks()));
                channel.respond(StatusResponse.ok(push.requestId()));
              } else {
                for (ByteBuf copy : copies) {
                  pool.free(copy);
                }
                Throwable cause = Retries.unwrap(error);
                refused(
                    channel,
                    push.requestId(),
                    cause instanceof RequestRejectedException r
                        ? r
                        : new RequestRejectedException(
                            StatusCode.REPLICA_UNAVAILABLE,
                            "forwarding to a replica failed: " + NetworkErrors.describe(cause)));
              }
            });
  }

  private static boolean forwardsNothing(List<ReplicaChain> chains) {
    for (ReplicaChain chain : chains) {
      if (!chain.replicas().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The partitions whose chain entry is empty: a server forwarded their blocks here as the last
   * copy of the chain (a writer names only partitions that have replicas).
   */
  private static Set<Integer> lastCopies(List<ReplicaChain> chains) {
    Set<Integer> last = Set.of();
    for (ReplicaChain chain : chains) {
      if (chain.replicas().isEmpty()) {
        if (last.isEmpty()) {
          last = new HashSet<>();
        }
        last.add(chain.partitionId());
      }
    }
    return last;
  }

  /** Bytes of the blocks whose partition has a chain: those the forwarder sent on. */
  private static long forwardedBytes(List<ReplicaChain> chains, List<BlockDescriptor> blocks) {
    Set<Integer> chained = new HashSet<>();
    for (ReplicaChain chain : chains) {
      if (!chain.replicas().isEmpty()) {
        chained.add(chain.partitionId());
      }
    }
    long bytes = 0;
    for (BlockDescriptor b : blocks) {
      if (chained.contains(b.partitionId())) {
        bytes += b.length();
      }
    }
    return bytes;
  }

  private void refused(TransportChannel channel, long requestId, RequestRejectedException e) {
    metrics.pushRejected(e.status().name());
    channel.respond(StatusResponse.error(requestId, e.status(), e.getMessage()));
  }

  /**
   * The pool buffers for a push whose header arrived, to receive its blocks into ({@link
   * PushPlacer}); null when the push would not be admitted now or the pool has no room for every
   * block, the usual path then receives it and answers. Nothing is counted as refused here.
   */
  ByteBuf[] placeBlocks(PushDataRequest.Header header) {
    List<BlockDescriptor> blocks = header.blocks();
    try {
      admit(
          header.appId(),
          header.shuffleId(),
          header.replicaChains(),
          blocks,
          BlockDescriptor.totalLength(blocks));
    } catch (RequestRejectedException e) {
      return null;
    }
    ByteBuf[] placed = new ByteBuf[blocks.size()];
    int allocated = 0;
    try {
      for (; allocated < placed.length; allocated++) {
        placed[allocated] = pool.tryAllocate(blocks.get(allocated).length());
        if (placed[allocated] == null) {
          break;
        }
      }
    } finally {
      // All or none, also when the allocator itself fails (out of direct memory).
      if (allocated < placed.length) {
        for (int j = 0; j < allocated; j++) {
          pool.free(placed[j]);
        }
      }
    }
    return allocated == placed.length ? placed : null;
  }

  /**
   * The blocks a socket read into the pool, once each matched its CRC32C (computed as its bytes
   * arrived); all freed if not.
   */
  private ByteBuf[] checkPlaced(List<BlockDescriptor> blocks, int[] crcs, ByteBuf[] placed) {
    try {
      for (int i = 0; i < placed.length; i++) {
        checkCrc(blocks.get(i), crcs[i]);
      }
      return placed;
    } catch (RuntimeException e) {
      for (ByteBuf block : placed) {
        pool.free(block);
      }
      throw e;
    }
  }

  /** Checks a push against its shuffle and the server's state; returns the shuffle. */
  private ShuffleState admit(
      String appId,
      int shuffleId,
      List<ReplicaChain> chains,
      List<BlockDescriptor> blocks,
      long bodySize) {
    store.checkTakingData();
    ShuffleState shuffle = store.shuffle(appId, shuffleId);
    for (BlockDescriptor b : blocks) {
      ShuffleStore.checkPartition(shuffle, b.partitionId());
    }
    for (ReplicaChain chain : chains) {
      ShuffleStore.checkPartition(shuffle, chain.partitionId());
    }
    if (!flushManager.storageAvailable()) {
      throw new RequestRejectedException(
          StatusCode.STORAGE_UNAVAILABLE,
          "no local directory of this server can take data (all full or failing; see "
              + ServerOptions.LOCAL_DIRS.key()
              + " and "
              + ServerOptions.DISK_MIN_FREE.key()
              + (flushManager.hasHdfsTier()
                  ? "), nor can its HDFS tier (" + ServerOptions.HDFS_DIR.key() + ")"
                  : "; or set " + ServerOptions.HDFS_DIR.key() + " for an HDFS tier)"));
    }
    long charged = 0;
    for (BlockDescriptor block : blocks) {
      charged += pool.chargeOf(block.length());
    }
    if (!pool.canEverHold(charged)) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "a push of "
              + bodySize
              + " bytes in "
              + blocks.size()
              + " blocks, which take "
              + charged
              + " bytes of push memory (each at least "
              + pool.minBlockCharge()
              + ", "
              + ServerOptions.BUFFER_CAPACITY.key()
              + " / "
              + ServerOptions.HEAP_BLOCKS_IN_MEMORY.key()
              + "), can never fit this server's "
              + pool.capacity()
              + " bytes ("
              + ServerOptions.BUFFER_CAPACITY.key()
              + "); push smaller batches");
    }
    // The partitions exist before any block is copied: creating one may be refused (its state
    // counts against the bookkeeping budget), and nothing of the push is kept then.
    for (BlockDescriptor b : blocks) {
      if (shuffle.partition(b.partitionId()) == null) {
        throw new RequestRejectedException(
            StatusCode.UNKNOWN_SHUFFLE,
            "shuffle " + shuffleId + " of " + appId + " was unregistered");
      }
    }
    return shuffle;
  }

  /** One exact-size pool buffer per block, all or none. */
  private ByteBuf[] copy(PushDataRequest push) {
    List<BlockDescriptor> blocks = push.blocks();
    ByteBuf body = ((NettyManagedBuffer) push.body()).byteBuf();
    ByteBuf[] copies = new ByteBuf[blocks.size()];
    int offset = body.readerIndex();
    try {
      for (int i = 0; i < copies.length; i++) {
        int length = blocks.get(i).length();
        ByteBuf copy = pool.tryAllocate(length);
        if (copy == null) {
          flushManager.requestRound();
          throw new RequestRejectedException(
              StatusCode.NO_BUFFER,
              "push memory is full ("
                  + pool.usedBytes()
                  + " of "
                  + pool.capacity()
                  + " bytes, "
                  + ServerOptions.BUFFER_CAPACITY.key()
                  + "); retry later");
        }
        copies[i] = copy.writeBytes(body, offset, length);
        checkCrc(blocks.get(i), copy);
        offset += length;
      }
      return copies;
    } catch (RuntimeException | Error e) {
      // All or none, also when the allocator itself fails (out of direct memory).
      for (int j = 0; j < copies.length && copies[j] != null; j++) {
        pool.free(copies[j]);
      }
      if (e instanceof RequestRejectedException r && r.status() == StatusCode.NO_BUFFER) {
        // After freeing the partial copies: their room was there before and did not suffice.
        pool.pushRefused();
      }
      throw e;
    }
  }

  /** Nothing corrupt is stored: a block must match the CRC32C its writer computed. */
  private static void checkCrc(BlockDescriptor block, ByteBuf copy) {
    checkCrc(block, Crc32c.of(copy));
  }

  private static void checkCrc(BlockDescriptor block, int crc) {
    if (crc != block.crc32c()) {
      throw new RequestRejectedException(
          StatusCode.CORRUPT_BLOCK,
          "block "
              + block.sequence()
              + " of map attempt "
              + block.taskAttemptId()
              + " for partition "
              + block.partitionId()
              + " arrived with CRC32C "
              + Integer.toHexString(crc)
              + ", its descriptor says "
              + Integer.toHexString(block.crc32c())
              + "; nothing of the push was kept");
    }
  }

  /** Hands the copies to their partitions, which own them from now on. */
  private void keep(
      ShuffleState shuffle,
      List<BlockDescriptor> blocks,
      ByteBuf[] copies,
      Set<Integer> lastCopies) {
    long bytes = 0;
    for (int i = 0; i < copies.length; i++) {
      BlockDescriptor b = blocks.get(i);
      PartitionState partition = shuffle.existingPartition(b.partitionId());
      if (partition != null && partition.add(b, copies[i], lastCopies.contains(b.partitionId()))) {
        flushManager.afterPush(partition);
      } else {
        // The shuffle was deleted while this push was in flight (admit created the partition):
        // nothing will read it.
        pool.free(copies[i]);
      }
      bytes += b.length();
    }
    metrics.pushed(bytes, copies.length);
  }
}
