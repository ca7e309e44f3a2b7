package io.sluice.common.block;

import java.util.Objects;

/**
 * Numbers the blocks of one map task attempt: each partition's blocks get sequences 0, 1, 2, ... At
 * commit, {@link #blockCount(int)} says which ids the attempt wrote for a partition: exactly the
 * sequences below it.
 *
 * <p>Not thread-safe: one allocator belongs to the one thread that cuts the task's blocks.
 */
public final class BlockIdAllocator {
  private final BlockIdLayout layout;
  private final long taskAttemptId;
  private final int[] blockCounts;

  /**
   * @throws BlockIdOverflowException if the layout cannot hold {@code numPartitions} partitions
   * @throws IllegalArgumentException if {@code numPartitions} or {@code taskAttemptId} is negative
   */
  public BlockIdAllocator(BlockIdLayout layout, int numPartitions, long taskAttemptId) {
    this.layout = Objects.requireNonNull(layout, "layout");
    layout.checkPartitions(numPartitions);
    if (taskAttemptId < 0) {
      throw new IllegalArgumentException("taskAttemptId must be non-negative, got " + taskAttemptId);
    }
    this.taskAttemptId = taskAttemptId;
    this.blockCounts = new int[numPartitions];
  }

  /**
   * The id of the next block of {@code partitionId}.
   *
   * @throws BlockIdOverflowException if the partition already has {@code maxSequence() + 1} blocks;
   *     nothing is counted then, so the call fails the same way again
   * @throws IndexOutOfBoundsException if {@code partitionId} is not a partition of this shuffle
   */
  public long next(int partitionId) {
    Objects.checkIndex(partitionId, blockCounts.length);
    int sequence = blockCounts[partitionId];
    long blockId = layout.blockId(sequence, partitionId, taskAttemptId);
    blockCounts[partitionId] = sequence + 1;
    return blockId;
  }

  /** How many block ids {@link #next(int)} has handed out for {@code partitionId}. */
  public int blockCount(int partitionId) {
    Objects.checkIndex(partitionId, blockCounts.length);
    return blockCounts[partitionId];
  }

  public long taskAttemptId() {
    return taskAttemptId;
  }

  public BlockIdLayout layout() {
    return layout;
  }
}
