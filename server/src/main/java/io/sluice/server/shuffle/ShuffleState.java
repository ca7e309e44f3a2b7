package io.sluice.server.shuffle;

import io.netty.buffer.ByteBuf;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.RestartManifest;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One registered shuffle of an application: its partitions on this server, created on first push.
 */
public final class ShuffleState {
  private final String appId;
  private final int shuffleId;
  private final int numPartitions;
  private final PartitionFilesFactory filesFactory;
  private final ConcurrentHashMap<Integer, PartitionState> partitions = new ConcurrentHashMap<>();

  /**
   * Heap of a partition's state with no block and no commit yet: the object, its lock, lists and
   * count record, and its entry in the shuffle's map.
   */
  public static final long PARTITION_HEAP_BYTES = 400;

  private final AttemptNumbers attempts;

  /** Set once, under this object's lock, so that no partition is created after deletion began. */
  private boolean deleted;

  /** Creates the files of a partition on first flush. */
  public interface PartitionFilesFactory {
    PartitionFiles create(String appId, int shuffleId, int partitionId);
  }

  /**
   * @param commits the server's budget for commit bookkeeping, which this shuffle draws on
   */
  ShuffleState(
      String appId,
      int shuffleId,
      int numPartitions,
      PartitionFilesFactory filesFactory,
      CommitBudget commits) {
    this.attempts = new AttemptNumbers(commits);
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.numPartitions = numPartitions;
    this.filesFactory = filesFactory;
  }

  public String appId() {
    return appId;
  }

  public int shuffleId() {
    return shuffleId;
  }

  public int numPartitions() {
    return numPartitions;
  }

  /**
   * The partition, created if needed; the id must already be checked against numPartitions. Null
   * once the shuffle is being deleted: a push that raced the deletion has nowhere to go.
   */
  public PartitionState partition(int partitionId) {
    PartitionState existing = partitions.get(partitionId);
    if (existing != null) {
      return existing;
    }
    synchronized (this) {
      if (deleted) {
        return null;
      }
      return partitions.computeIfAbsent(
          partitionId,
          id -> {
            // A partition's own state counts against the bookkeeping budget, as its commits do.
            attempts.reserve(PARTITION_HEAP_BYTES);
            return new PartitionState(
                id, () -> filesFactory.create(appId, shuffleId, id), attempts);
          });
    }
  }

  /**
   * The number of a map attempt in this shuffle, given at its first commit: commits of a request to
   * many partitions look the attempt up once.
   */
  /**
   * Restores a partition that the server served before its restart; its bookkeeping is taken from
   * the budget even past it, since dropping what was acknowledged would cost a stage re-run.
   */
  void restorePartition(RestartManifest.Partition p) throws IOException {
    attempts.restoring(true);
    try {
      partition(p.partitionId()).restore(p);
    } finally {
      attempts.restoring(false);
    }
  }

  public int attemptNumber(long taskAttemptId) {
    return attempts.numberOf(taskAttemptId);
  }

  /** Heap that the shuffle's commit records take: the attempt numbering and every partition's. */
  public long commitHeapBytes() {
    long bytes = attempts.heapBytes();
    for (PartitionState p : partitions.values()) {
      bytes += p.commitHeapBytes();
    }
    return bytes;
  }

  /** Drops a partition that could not be restored. */
  void forget(int partitionId) {
    partitions.remove(partitionId);
  }

  /** The partition if it holds anything. */
  public PartitionState existingPartition(int partitionId) {
    return partitions.get(partitionId);
  }

  public Collection<PartitionState> partitions() {
    return partitions.values();
  }

  /** Frees whatever is still in memory and leaves the files (the server stops for a restart). */
  void forgetMemory(Consumer<ByteBuf> free) {
    synchronized (this) {
      deleted = true;
    }
    for (PartitionState p : partitions.values()) {
      p.forgetMemory(free);
    }
    attempts.release();
  }

  void delete(Consumer<ByteBuf> free) {
    synchronized (this) {
      deleted = true;
    }
    for (PartitionState p : partitions.values()) {
      p.delete(free);
    }
    attempts.release();
  }
}
