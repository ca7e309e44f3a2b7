package io.sluice.server.shuffle;

import io.sluice.common.transport.LogRateLimiter;
import io.sluice.server.ServerOptions;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.StorageUnavailableException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a partition's in-memory blocks to its files and frees their memory. Runs on disk threads.
 */
public final class PartitionFlusher {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionFlusher.class);

  /**
   * Failed flushes logged at most every 10 s; {@code sluice_server_flush_failures_total} counts.
   */
  private static final LogRateLimiter FAILURES_LOGGED = new LogRateLimiter(10_000);

  private final PushBufferPool pool;
  private final ServerMetrics metrics;
  private final ServerOptions.FlushDirect direct;

  /**
   * @param direct which partitions are written around the page cache ({@code flush.direct})
   */
  public PartitionFlusher(
      PushBufferPool pool, ServerMetrics metrics, ServerOptions.FlushDirect direct) {
    this.pool = pool;
    this.metrics = metrics;
    this.direct = direct;
  }

  /** Flushes what the partition holds now; the partition must have been queued for flushing. */
  public void flush(PartitionState partition) {
    long start = System.nanoTime();
    List<InMemoryBlock> blocks = partition.takeForFlush();
    partition.storageLock().lock();
    try {
      boolean toHdfs;
      // Only the write may fail the flush: once written, the blocks are the files' and freed, and
      // a failure past that point must not hand them back to the partition.
      try {
        PartitionFiles files = partition.filesForWrite();
        if (files == null) {
          // Deleted while queued: nobody will read these blocks.
          partition.flushWritten();
          freeAll(blocks);
          partition.flushEnded();
          return;
        }
        toHdfs = files.append(blocks, bypassPageCache(partition));
      } catch (StorageUnavailableException | RuntimeException e) {
        // Retried while storage stays unavailable: one line per interval, the rest counted.
        if (FAILURES_LOGGED.tryAcquire()) {
          if (e instanceof StorageUnavailableException) {
            LOG.error(
                "Cannot flush partition {}: {}; its {} blocks stay in memory",
                partition.partitionId(),
                e.getMessage(),
                blocks.size());
          } else {
            LOG.error("Flush of partition {} failed", partition.partitionId(), e);
          }
        }
        if (!partition.flushFailed(blocks)) {
          freeAll(blocks);
        }
        metrics.flushFailed();
        return;
      }
      // Readable from disk now; only then may they leave memory.
      partition.flushWritten();
      long bytes = 0;
      for (InMemoryBlock b : blocks) {
        bytes += b.length();
      }
      freeAll(blocks);
      partition.flushEnded();
      metrics.flushed(bytes, System.nanoTime() - start, toHdfs);
    } finally {
      partition.storageLock().unlock();
    }
  }

  private boolean bypassPageCache(PartitionState partition) {
    return switch (direct) {
      case NONE -> false;
      case LAST_COPIES -> partition.holdsOnlyLastCopies();
      case ALL -> true;
    };
  }

  private void freeAll(List<InMemoryBlock> blocks) {
    for (InMemoryBlock b : blocks) {
      pool.free(b.data());
    }
  }
}
