package io.sluice.server.shuffle;

import java.util.Arrays;

/**
 * How many blocks each map attempt committed to one partition on this server: one byte per attempt
 * number of the shuffle ({@link AttemptNumbers}) up to the highest that committed here, so a
 * 10,000-map shuffle costs at most 10 KB per partition. A byte holds "no commit" (0) or a count up
 * to {@value #LARGEST_INLINE}; larger counts (an attempt that wrote thousands of blocks to one
 * partition) sit in a small side table. Not thread-safe: the owning partition serialises access.
 */
final class CommittedCounts {
  private static final int LARGEST_INLINE = 253;

  /** The byte of a count that lives in the side table. */
  private static final int IN_SIDE_TABLE = 255;

  private static final byte[] NONE = new byte[0];

  private final AttemptNumbers numbers;

  /** Per attempt number: 0 for no commit, count + 1, or {@link #IN_SIDE_TABLE}. */
  private byte[] counts = NONE;

  /**
   * Attempt numbers charged to the bookkeeping budget: the highest committed here + 1. The budget
   * charges a byte per number, not the array's spare capacity (which the heap's sizing covers), so
   * a shape of {@code heap.commit.pairs} pairs fits it whatever order attempts come in.
   */
  private int charged;

  private int committed;

  /** Attempt numbers and counts of the counts too large for a byte, sorted by number. */
  private int[] largeNumbers = new int[0];

  private int[] largeCounts = new int[0];

  CommittedCounts(AttemptNumbers numbers) {
    this.numbers = numbers;
  }

  /**
   * Records that {@code attempt} wrote {@code count} blocks. A repeated commit of the same attempt
   * (a retried request) keeps the last count.
   */
  void put(long attempt, int count) {
    putNumbered(numbers.numberOf(attempt), count);
  }

  /** {@link #put} for the attempt with number {@code number} in the shuffle's numbering. */
  void putNumbered(int number, int count) {
    if (count < 0) {
      throw new IllegalArgumentException("block count must not be negative: " + count);
    }
    // Everything this commit takes of the budget is reserved before anything changes, so a refusal
    // leaves the record as it was.
    boolean newLarge =
        count > LARGEST_INLINE
            && (number >= counts.length || (counts[number] & 0xff) != IN_SIDE_TABLE);
    long toReserve = Math.max(0, number + 1 - charged) + (newLarge ? 8 : 0);
    if (toReserve > 0) {
      numbers.reserve(toReserve);
      charged = Math.max(charged, number + 1);
    }
    if (number >= counts.length) {
      counts = Arrays.copyOf(counts, Math.max(number + 1, counts.length + (counts.length >> 1)));
    }
    if (counts[number] == 0) {
      committed++;
    }
    removeLarge(number);
    if (count <= LARGEST_INLINE) {
      counts[number] = (byte) (count + 1);
    } else {
      counts[number] = (byte) IN_SIDE_TABLE;
      addLarge(number, count);
    }
  }

  /** The count each of {@code wanted} committed, or -1 where it committed nothing here. */
  int[] countsOf(long[] wanted) {
    int[] result = new int[wanted.length];
    for (int i = 0; i < wanted.length; i++) {
      result[i] = countOf(numbers.find(wanted[i]));
    }
    return result;
  }

  /** Number of attempts with a commit. */
  int size() {
    return committed;
  }

  /** The attempts with a commit, ascending (a copy). */
  long[] attempts() {
    return sortedByAttempt()[0];
  }

  /** Their counts, in the order of {@link #attempts()} (a copy). */
  int[] counts() {
    long[] wide = sortedByAttempt()[1];
    int[] result = new int[wide.length];
    for (int i = 0; i < wide.length; i++) {
      result[i] = (int) wide[i];
    }
    return result;
  }

  /** Bytes of heap this partition's record takes (its arrays' capacity). */
  long heapBytes() {
    return counts.length + 8L * largeNumbers.length;
  }

  private int countOf(int number) {
    if (number < 0 || number >= counts.length || counts[number] == 0) {
      return -1;
    }
    int stored = counts[number] & 0xff;
    if (stored != IN_SIDE_TABLE) {
      return stored - 1;
    }
    return largeCounts[Arrays.binarySearch(largeNumbers, number)];
  }

  /** Attempts and their counts, sorted by attempt: {attempts, counts}. */
  private long[][] sortedByAttempt() {
    long[][] pairs = new long[committed][];
    int n = 0;
    for (int number = 0; number < counts.length; number++) {
      if (counts[number] != 0) {
        pairs[n++] = new long[] {numbers.attempt(number), countOf(number)};
      }
    }
    Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
    long[] attempts = new long[n];
    long[] values = new long[n];
    for (int i = 0; i < n; i++) {
      attempts[i] = pairs[i][0];
      values[i] = pairs[i][1];
    }
    return new long[][] {attempts, values};
  }

  /** Two ints a count, charged (by {@link #putNumbered}) as the count arrays' bytes are. */
  private void addLarge(int number, int count) {
    int at = -Arrays.binarySearch(largeNumbers, number) - 1;
    largeNumbers = insert(largeNumbers, at, number);
    largeCounts = insert(largeCounts, at, count);
  }

  private void removeLarge(int number) {
    int at = Arrays.binarySearch(largeNumbers, number);
    if (at >= 0) {
      largeNumbers = remove(largeNumbers, at);
      largeCounts = remove(largeCounts, at);
    }
  }

  private static int[] insert(int[] array, int at, int value) {
    int[] grown = new int[array.length + 1];
    System.arraycopy(array, 0, grown, 0, at);
    grown[at] = value;
    System.arraycopy(array, at, grown, at + 1, array.length - at);
    return grown;
  }

  private static int[] remove(int[] array, int at) {
    int[] shrunk = new int[array.length - 1];
    System.arraycopy(array, 0, shrunk, 0, at);
    System.arraycopy(array, at + 1, shrunk, at, array.length - at - 1);
    return shrunk;
  }
}
