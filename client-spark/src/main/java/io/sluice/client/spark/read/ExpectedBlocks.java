package io.sluice.client.spark.read;

import io.sluice.common.block.BlockIdLayout;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The blocks one partition must yield: those the map attempts Spark counts committed, each exactly
 * once. Decides which blocks are kept (a counted attempt's committed block not seen before, keyed
 * by (taskAttemptId, blockId)) and, once everything was read, which expected block never came.
 * The server lists committed ids without their attempts, so when two counted attempts share the
 * low bits a block id keeps, one id stands for both blocks and is complete when either arrived.
 * Not thread-safe.
 */
final class ExpectedBlocks {
  private final long[] attempts;
  private final BlockIdLayout layout;
  private long[] expected = new long[0];
  private boolean[] seen = new boolean[0];
  private final Set<BlockKey> received = new HashSet<>();

  /** @param countedAttempts the map attempts Spark counts that wrote bytes to this partition */
  ExpectedBlocks(long[] countedAttempts, BlockIdLayout layout) {
    this.attempts = countedAttempts.clone();
    Arrays.sort(this.attempts);
    this.layout = layout;
  }

  /**
   * Sets the ids of the blocks the counted attempts committed, as the server lists them.
   *
   * @return a counted attempt none of whose blocks is listed, or -1 when each has at least one.
   *     Every counted attempt wrote bytes to this partition, so one with no block means the server
   *     lost its commit.
   */
  long expect(long[] committedBlockIds) {
    expected = Arrays.stream(committedBlockIds).sorted().distinct().toArray();
    seen = new boolean[expected.length];
    Set<Long> attemptBits = new HashSet<>();
    for (long id : expected) {
      if (id >= 0) {
        attemptBits.add(layout.taskAttemptBits(id));
      }
    }
    for (long attempt : attempts) {
      if (!attemptBits.contains(attempt & ((1L << layout.taskAttemptWidth()) - 1))) {
        return attempt;
      }
    }
    return -1;
  }

  /** Whether a block is one this partition still needs. */
  boolean wants(long taskAttemptId, long blockId) {
    return expectedIndex(taskAttemptId, blockId) >= 0
        && !received.contains(new BlockKey(taskAttemptId, blockId));
  }

  /** Records a block if it is wanted; returns whether it was (false: drop it). */
  boolean accept(long taskAttemptId, long blockId) {
    int index = expectedIndex(taskAttemptId, blockId);
    if (index < 0 || !received.add(new BlockKey(taskAttemptId, blockId))) {
      return false;
    }
    seen[index] = true;
    return true;
  }

  /** An expected block id that no accepted block had, or -1 when none is missing. */
  long firstMissing() {
    for (int i = 0; i < expected.length; i++) {
      if (!seen[i]) {
        return expected[i];
      }
    }
    return -1;
  }

  /** The counted attempt whose low bits {@code blockId} carries, or -1. */
  long attemptOf(long blockId) {
    if (blockId < 0) {
      return -1;
    }
    for (long attempt : attempts) {
      if (layout.matchesTaskAttempt(blockId, attempt)) {
        return attempt;
      }
    }
    return -1;
  }

  /** Index of {@code blockId} in the expected ids if the block counts, else -1. */
  private int expectedIndex(long taskAttemptId, long blockId) {
    if (blockId < 0 || Arrays.binarySearch(attempts, taskAttemptId) < 0
        || !layout.matchesTaskAttempt(blockId, taskAttemptId)) {
      return -1;
    }
    int index = Arrays.binarySearch(expected, blockId);
    return index >= 0 ? index : -1;
  }
}
