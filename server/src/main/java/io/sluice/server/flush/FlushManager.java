package io.sluice.server.flush;

import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.shuffle.AppState;
import io.sluice.server.shuffle.PartitionFlusher;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.shuffle.ShuffleState;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.HdfsTier;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decides what to flush and when. A partition past {@code buffer.partition.flush.threshold} is
 * flushed on its own; when the push pool says flushing must start ({@link PushBufferPool}'s
 * watermarks), a round queues the largest partitions until the bytes the pool asks for are on their
 * way to disk. Each partition has at most one flush queued or running; flushes run on the threads
 * of the disk they write to.
 */
public final class FlushManager implements Closeable {
  /**
   * How often a round runs while the pool is at its high watermark, flushes are queued or running,
   * or no storage could take data at the last check.
   */
  static final long PLAN_INTERVAL_MILLIS = 50;

  /**
   * How often a round runs otherwise: it then only checks the disks and gives back spare chunks,
   * and an idle server's planner waking 20 times a second cost about 3 ms of CPU a second.
   */
  static final long QUIET_PLAN_INTERVAL_MILLIS = 1_000;

  /**
   * Pushes over the high watermark ask for a round at most this often. A round queues flushes for
   * everything above the low watermark, so rounds one push apart find the same partitions already
   * queued and only walk every partition again: with many clients that was a round per push.
   */
  static final long PUSH_ROUND_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final ShuffleStore store;
  private final DiskManager disks;

  /** Null without an HDFS tier. */
  private final HdfsTier hdfs;

  private final PushBufferPool pool;
  private final PartitionFlusher flusher;
  private final long partitionThreshold;
  private final ServerMetrics metrics;
  private final ScheduledExecutorService planner;

  /** The timed round pending; only the planner thread reads and writes it. */
  private ScheduledFuture<?> nextRound;

  private final AtomicBoolean roundRequested = new AtomicBoolean();
  private final AtomicLong rounds = new AtomicLong();
  private volatile long lastRoundNanos = System.nanoTime() - PUSH_ROUND_GAP_NANOS;
  private final AtomicInteger queued = new AtomicInteger();
  private volatile boolean storageAvailable = true;

  public FlushManager(
      ShuffleStore store,
      DiskManager disks,
      PushBufferPool pool,
      PartitionFlusher flusher,
      long partitionThreshold,
      ServerMetrics metrics) {
    this(store, disks, null, pool, flusher, partitionThreshold, metrics);
  }

  /**
   * @param hdfs the HDFS tier, which takes flushes that no local dir can; or null
   */
  public FlushManager(
      ShuffleStore store,
      DiskManager disks,
      HdfsTier hdfs,
      PushBufferPool pool,
      PartitionFlusher flusher,
      long partitionThreshold,
      ServerMetrics metrics) {
    this.store = store;
    this.disks = disks;
    this.hdfs = hdfs;
    this.pool = pool;
    this.flusher = flusher;
    this.partitionThreshold = partitionThreshold;
    this.metrics = metrics;
    this.planner =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-flush-planner");
              t.setDaemon(true);
              return t;
            });
    planner.execute(this::scheduleNextRound);
  }

  private void timedRound() {
    nextRound = null;
    planRound();
  }

  /**
   * Keeps exactly one timed round pending, at the interval the pool's state asks for: a round that
   * finds pressure, asked for or timed, brings a quiet round's time forward. On the planner thread.
   */
  private void scheduleNextRound() {
    boolean pressed = pool.mayNeedFlush() || queued.get() > 0 || !storageAvailable;
    long delay = pressed ? PLAN_INTERVAL_MILLIS : QUIET_PLAN_INTERVAL_MILLIS;
    if (nextRound != null) {
      if (nextRound.getDelay(TimeUnit.MILLISECONDS) <= delay) {
        return;
      }
      nextRound.cancel(false);
    }
    try {
      nextRound = planner.schedule(this::timedRound, delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // Closed: no more rounds.
    }
  }

  /** Called after blocks were added to {@code partition}; cheap enough for the event loop. */
  public void afterPush(PartitionState partition) {
    if (partition.unflushedBytes() >= partitionThreshold) {
      queue(partition);
    }
    if (pool.mayNeedFlush() && System.nanoTime() - lastRoundNanos >= PUSH_ROUND_GAP_NANOS) {
      requestRound();
    }
  }

  /** Asks for a flush round now (memory is short); coalesces concurrent requests. */
  public void requestRound() {
    if (roundRequested.compareAndSet(false, true)) {
      planner.execute(this::planRound);
    }
  }

  /** False when no disk could take data at the last check: pushes are then refused. */
  public boolean storageAvailable() {
    return storageAvailable;
  }

  /** Whether flushes that no local dir can take may go to an HDFS tier. */
  public boolean hasHdfsTier() {
    return hdfs != null;
  }

  /** Flushes queued or running. */
  public int queuedFlushes() {
    return queued.get();
  }

  /** Planning rounds run so far. */
  long roundsPlanned() {
    return rounds.get();
  }

  private void planRound() {
    roundRequested.set(false);
    lastRoundNanos = System.nanoTime();
    rounds.incrementAndGet();
    try {
      storageAvailable = disks.pick() != null || (hdfs != null && hdfs.isWritable());
      pool.releaseIdleSpares();
      long toFlush = pool.bytesToFlush();
      if (toFlush == 0) {
        return;
      }
      // Flushes queued by earlier rounds and not yet ended still count in the pool: what they will
      // give back is covered already, or every round until they end would queue more partitions.
      List<PartitionState> candidates = new ArrayList<>();
      for (AppState app : store.applications()) {
        for (ShuffleState shuffle : app.shuffles()) {
          for (PartitionState p : shuffle.partitions()) {
            toFlush -= p.bytesOnTheirWayToDisk(pool.minBlockCharge());
            if (p.unflushedBytes() > 0) {
              candidates.add(p);
            }
          }
        }
      }
      // Sizes change under us; a snapshot is good enough to pick the largest first. A size is what
      // the partition's blocks take of the pool, in which each block counts at least its least
      // charge: for tiny blocks that, not their bytes, is what a flush gives back.
      long[] sizes = new long[candidates.size()];
      for (int i = 0; i < sizes.length; i++) {
        PartitionState p = candidates.get(i);
        sizes[i] = Math.max(p.unflushedBytes(), (long) p.unflushedBlocks() * pool.minBlockCharge());
      }
      LargestFirst order = new LargestFirst(sizes);
      while (toFlush > 0 && order.hasNext()) {
        int i = order.next();
        if (queue(candidates.get(i))) {
          toFlush -= sizes[i];
        }
      }
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(FlushManager.class).error("Flush planning failed", e);
    } finally {
      scheduleNextRound();
    }
  }

  private boolean queue(PartitionState partition) {
    if (!partition.tryQueueFlush()) {
      return false;
    }
    // A partition keeps writing to the disk its files are on, so its flushes stay ordered there.
    Executor executor = partition.flushExecutor();
    if (executor == null) {
      partition.cancelQueuedFlush();
      // A partition deleted since it was picked has nothing to write; only one with nowhere to
      // write says that storage is gone, until a round finds a disk again.
      if (!partition.isDeleted() && storageAvailable) {
        storageAvailable = false;
        // Brings a quiet round's time forward (not a round now, which would find the same).
        try {
          planner.execute(this::scheduleNextRound);
        } catch (RejectedExecutionException closed) {
          // Closed: no more rounds.
        }
      }
      return false;
    }
    queued.incrementAndGet();
    metrics.flushQueued(queued.get());
    try {
      executor.execute(
          () -> {
            try {
              flusher.flush(partition);
            } finally {
              metrics.flushQueued(queued.decrementAndGet());
            }
            // Pushes that arrived while this flush ran found it queued and queued nothing: what
            // they left past the threshold goes now, not at the next push or memory shortage.
            if (storageAvailable && partition.unflushedBytes() >= partitionThreshold) {
              queue(partition);
            }
          });
    } catch (RejectedExecutionException e) {
      // The server is stopping: its flush threads take no more work.
      partition.cancelQueuedFlush();
      metrics.flushQueued(queued.decrementAndGet());
      return false;
    }
    return true;
  }

  /**
   * Writes every block still in memory to disk and waits until all are readable from there, at most
   * {@code timeout}; for a server that stops and will serve its data again after a restart.
   *
   * @return whether nothing is left in memory
   */
  public boolean flushAll(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      boolean inMemory = false;
      for (AppState app : store.applications()) {
        for (ShuffleState shuffle : app.shuffles()) {
          for (PartitionState p : shuffle.partitions()) {
            if (p.memoryBytes() > 0) {
              inMemory = true;
              if (p.unflushedBytes() > 0) {
                queue(p);
              }
            }
          }
        }
      }
      if (!inMemory) {
        return true;
      }
      if (System.nanoTime() > deadline || !storageAvailable) {
        return false;
      }
      Thread.sleep(20);
    }
  }

  @Override
  public void close() {
    planner.shutdownNow();
  }
}
