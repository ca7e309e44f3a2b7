package io.sluice.server.handler;

import io.netty.util.ReferenceCountUtil;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.memory.Budget;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.memory.ReadBudget;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.replication.ReplicaForwarder;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.shuffle.RequestRejectedException;
import io.sluice.server.shuffle.ShuffleState;
import io.sluice.server.shuffle.ShuffleStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the shuffle server's requests. Pushes, memory reads and lookups run on the event loop, and
 * so do commits and block-count lookups of a few entries; larger ones, and anything that deletes
 * files, run on the control executor.
 */
public final class ShuffleRequestHandler implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleRequestHandler.class);

  /**
   * The most partitions (of a commit) or attempts (of a block-count lookup) answered on the event
   * loop: microseconds of bookkeeping; larger requests go to the control executor.
   */
  private static final int INLINE_BOOKKEEPING_ENTRIES = 256;

  private final ShuffleStore store;
  private final PushHandler push;
  private final PushBufferPool pool;
  private final FlushManager flushManager;
  private final Duration pushWait;
  private final ReadHandler read;
  private final ExecutorService control;

  /**
   * Entries (partitions or attempts) of the commits and block-count lookups waiting for the control
   * threads, at most 4 M: each holds its decoded arrays on the heap (8 bytes an entry, 32 MiB in
   * all) until it runs, while the receive memory of its frame is given back as soon as it is
   * queued. Without a bound, a client pipelining large commits, or control threads held up by a
   * hung disk, would grow the heap until the server stops.
   */
  private final Budget queuedBookkeeping = new Budget(4L << 20);

  private final ServerMetrics metrics;
  private final boolean authRequired;

  /**
   * @param remoteReads threads that read data on the HDFS tier; null without one
   * @param pushWait how long a push is held back unread while the pool has no room for it
   * @param authRequired whether connections must authenticate (pushes are received in place only on
   *     connections that may act for their application)
   */
  public ShuffleRequestHandler(
      ShuffleStore store,
      PushBufferPool pool,
      ReadBudget readBudget,
      FlushManager flushManager,
      ReplicaForwarder forwarder,
      ServerMetrics metrics,
      ExecutorService control,
      Executor remoteReads,
      int maxFrameSize,
      Duration pushWait,
      boolean authRequired) {
    this.authRequired = authRequired;
    this.store = store;
    this.pool = pool;
    this.flushManager = flushManager;
    this.pushWait = pushWait;
    this.push = new PushHandler(store, pool, flushManager, forwarder, metrics);
    this.read = new ReadHandler(store, readBudget, metrics, remoteReads, maxFrameSize);
    this.control = control;
    this.metrics = metrics;
  }

  @Override
  public FrameGate frameGate(TransportChannel channel) {
    return new PushMemoryGate(pool, flushManager, metrics, pushWait, channel);
  }

  @Override
  public BodyPlacer bodyPlacer(TransportChannel channel) {
    return new PushPlacer(push, pool, channel, authRequired);
  }

  @Override
  public void protocolError(StatusCode status) {
    metrics.protocolError(status.name());
  }

  @Override
  public void handle(TransportChannel channel, RequestMessage request) {
    if (request instanceof PushDataRequest p) {
      push.handle(channel, p);
      return;
    }
    try {
      dispatch(channel, request);
    } catch (RequestRejectedException e) {
      ReferenceCountUtil.release(request);
      channel.respond(StatusResponse.error(request.requestId(), e.status(), e.getMessage()));
    } catch (Exception e) {
      ReferenceCountUtil.release(request);
      LOG.error("Request {} from {} failed", request, channel.remoteAddress(), e);
      channel.respond(
          StatusResponse.error(request.requestId(), StatusCode.INTERNAL_ERROR, e.toString()));
    }
  }

  private void dispatch(TransportChannel channel, RequestMessage request) throws Exception {
    long id = request.requestId();
    if (request instanceof RegisterApplicationRequest r) {
      // With authentication on, the secret is the one the connection proved (an executor's) or
      // brought (the driver's registrar connection); the store refuses a different one.
      store.registerApplication(
          r.appId(), r.user(), channel.identity() == null ? null : channel.identity().appSecret());
      channel.respond(StatusResponse.ok(id));
    } else if (request instanceof AppHeartbeatRequest r) {
      store.heartbeat(r.appId());
      channel.respond(StatusResponse.ok(id));
    } else if (request instanceof RegisterShuffleRequest r) {
      store.registerShuffle(r.appId(), r.shuffleId(), r.numPartitions());
      channel.respond(StatusResponse.ok(id));
    } else if (request instanceof FetchMemoryDataRequest r) {
      read.fetchMemory(channel, r, channel.channel().alloc());
    } else if (request instanceof FetchIndexPageRequest r) {
      read.fetchIndexPage(channel, r, channel.channel().alloc());
    } else if (request instanceof FetchIndexRequest r) {
      read.fetchIndex(channel, r, channel.channel().alloc());
    } else if (request instanceof FetchDataRequest r) {
      read.fetchData(channel, r, channel.channel().alloc());
    } else if (request instanceof CommitMapOutputRequest r) {
      bookkeeping(
          channel,
          id,
          r.partitionIds().length,
          () -> {
            commit(r);
            channel.respond(StatusResponse.ok(id));
          });
    } else if (request instanceof GetShuffleResultRequest r) {
      bookkeeping(
          channel,
          id,
          r.taskAttemptIds().length,
          () -> {
            ShuffleState shuffle = store.shuffle(r.appId(), r.shuffleId());
            ShuffleStore.checkPartition(shuffle, r.partitionId());
            PartitionState partition = shuffle.existingPartition(r.partitionId());
            int[] counts =
                partition == null
                    ? notCommitted(r.taskAttemptIds().length)
                    : partition.committedCounts(r.taskAttemptIds());
            channel.respond(new GetShuffleResultResponse(id, counts));
          });
    } else if (request instanceof UnregisterShuffleRequest r) {
      offload(
          channel,
          id,
          () -> {
            store.unregisterShuffle(r.appId(), r.shuffleId());
            channel.respond(StatusResponse.ok(id));
          });
    } else if (request instanceof UnregisterApplicationRequest r) {
      offload(
          channel,
          id,
          () -> {
            store.unregisterApplication(r.appId());
            channel.respond(StatusResponse.ok(id));
          });
    } else {
      ReferenceCountUtil.release(request);
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST, request.type() + " is not served by a shuffle server");
    }
  }

  private void commit(CommitMapOutputRequest r) {
    ShuffleState shuffle = store.shuffle(r.appId(), r.shuffleId());
    int[] partitions = r.partitionIds();
    for (int p : partitions) {
      ShuffleStore.checkPartition(shuffle, p);
    }
    int attempt = shuffle.attemptNumber(r.taskAttemptId());
    for (int i = 0; i < partitions.length; i++) {
      PartitionState partition = shuffle.partition(partitions[i]);
      if (partition != null) {
        partition.commit(attempt, r.blockCounts()[i]);
      }
    }
  }

  private static int[] notCommitted(int n) {
    int[] counts = new int[n];
    Arrays.fill(counts, GetShuffleResultResponse.NOT_COMMITTED);
    return counts;
  }

  /**
   * Runs a commit or a block-count lookup of {@code entries} partitions or attempts: on the event
   * loop when it is small (a small shuffle's tasks then wait for no hand-off to another thread and
   * back, twice per task), on the control executor otherwise, so that no event loop stalls on a map
   * task's thousands of partitions.
   */
  private void bookkeeping(TransportChannel channel, long requestId, int entries, Runnable work) {
    if (entries <= INLINE_BOOKKEEPING_ENTRIES) {
      answering(channel, requestId, work).run();
      return;
    }
    if (!queuedBookkeeping.tryReserve(entries)) {
      channel.respond(
          StatusResponse.error(
              requestId,
              StatusCode.BUSY,
              queuedBookkeeping.used()
                  + " entries of commits and block-count lookups wait for this server's control"
                  + " threads; retry"));
      return;
    }
    offload(
        channel,
        requestId,
        () -> {
          try {
            work.run();
          } finally {
            queuedBookkeeping.release(entries);
          }
        },
        () -> queuedBookkeeping.release(entries));
  }

  private void offload(TransportChannel channel, long requestId, Runnable work) {
    offload(channel, requestId, work, () -> {});
  }

  /**
   * @param notRun what to undo when the control executor refuses {@code work} (it is stopping)
   */
  private void offload(TransportChannel channel, long requestId, Runnable work, Runnable notRun) {
    try {
      control.execute(answering(channel, requestId, work));
    } catch (RejectedExecutionException e) {
      notRun.run();
      channel.respond(
          StatusResponse.error(requestId, StatusCode.SHUTTING_DOWN, "server is stopping"));
    }
  }

  /** {@code work}, answering the request with the error it fails with. */
  private static Runnable answering(TransportChannel channel, long requestId, Runnable work) {
    return () -> {
      try {
        work.run();
      } catch (RequestRejectedException e) {
        channel.respond(StatusResponse.error(requestId, e.status(), e.getMessage()));
      } catch (RuntimeException e) {
        LOG.error("Request {} from {} failed", requestId, channel.remoteAddress(), e);
        channel.respond(StatusResponse.error(requestId, StatusCode.INTERNAL_ERROR, e.toString()));
      }
    };
  }
}
