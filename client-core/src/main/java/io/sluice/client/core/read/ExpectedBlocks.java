package io.sluice.client.core.read;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The blocks one partition must yield: for each map attempt the reader counts, the blocks numbered
 * {@code 0 .. n - 1}, where {@code n} is the block count the attempt committed, each exactly once.
 * Decides which blocks are kept (a counted attempt's block not received before) and, once every
 * location was read, which block or commit never came. Blocks are keyed by (taskAttemptId,
 * sequence), so attempts never mask each other's missing blocks. Not thread-safe.
 */
final class ExpectedBlocks {
  private static final int UNKNOWN = -1;

  private final long[] attempts;
  private final int[] counts;
  private final BitSet[] received;

  /**
   * @param countedAttempts the map attempts the reader counts that wrote bytes to the partition
   */
  ExpectedBlocks(long[] countedAttempts) {
    this.attempts = Arrays.stream(countedAttempts).sorted().distinct().toArray();
    this.counts = new int[attempts.length];
    Arrays.fill(counts, UNKNOWN);
    this.received = new BitSet[attempts.length];
    for (int i = 0; i < received.length; i++) {
      received[i] = new BitSet();
    }
  }

  /** The counted attempts, ascending, each once; do not modify. */
  long[] attempts() {
    return attempts;
  }

  /**
   * Records the block count a server lists for {@code attempt}. An attempt sends the same count to
   * every server it wrote the partition to, so differing counts mean a server's record is damaged.
   *
   * @throws IllegalStateException if a different count was recorded before
   */
  void commit(long attempt, int count) {
    int i = Arrays.binarySearch(attempts, attempt);
    if (i < 0 || count < 1) {
      return;
    }
    if (counts[i] != UNKNOWN && counts[i] != count) {
      throw new IllegalStateException(
          "map attempt "
              + attempt
              + " committed "
              + counts[i]
              + " blocks on one server and "
              + count
              + " on another");
    }
    counts[i] = count;
  }

  /** Whether a block is one this partition still needs. */
  boolean wants(long attempt, int sequence) {
    int i = Arrays.binarySearch(attempts, attempt);
    return i >= 0
        && sequence >= 0
        && (counts[i] == UNKNOWN || sequence < counts[i])
        && !received[i].get(sequence);
  }

  /** Records a block if it is wanted; returns whether it was (false: drop it). */
  boolean accept(long attempt, int sequence) {
    if (!wants(attempt, sequence)) {
      return false;
    }
    received[Arrays.binarySearch(attempts, attempt)].set(sequence);
    return true;
  }

  /**
   * What is missing once every location was read: a counted attempt no server listed a commit for,
   * or a committed block that never arrived; null when the partition is complete.
   */
  String missing() {
    for (int i = 0; i < attempts.length; i++) {
      if (counts[i] == UNKNOWN) {
        return "no server lists a commit of map attempt "
            + attempts[i]
            + ", though Spark counts that attempt's output";
      }
      int firstMissing = received[i].nextClearBit(0);
      if (firstMissing < counts[i]) {
        return "block "
            + firstMissing
            + " of the "
            + counts[i]
            + " that map attempt "
            + attempts[i]
            + " committed never arrived";
      }
    }
    return null;
  }
}
