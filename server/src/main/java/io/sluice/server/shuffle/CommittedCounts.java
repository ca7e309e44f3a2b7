package io.sluice.server.shuffle;

import java.util.Arrays;

/**
 * How many blocks each map attempt committed to one partition on this server, in two primitive
 * arrays (12 bytes per attempt and partition, plus growth slack): no object per commit, so the heap
 * grows with the number of commits and not with block counts. Appends keep arrival order; the
 * arrays are sorted by attempt on the first look-up after an append. Not thread-safe: the owning
 * partition serialises access.
 */
final class CommittedCounts {
  private static final long[] NO_ATTEMPTS = new long[0];
  private static final int[] NO_COUNTS = new int[0];

  private long[] attempts = NO_ATTEMPTS;
  private int[] counts = NO_COUNTS;
  private int size;
  private boolean sorted = true;

  /**
   * Records that {@code attempt} wrote {@code count} blocks. A repeated commit of the same attempt
   * (a retried request) keeps the last count.
   */
  void put(long attempt, int count) {
    if (sorted) {
      int i = Arrays.binarySearch(attempts, 0, size, attempt);
      if (i >= 0) {
        counts[i] = count;
        return;
      }
    }
    if (size == attempts.length) {
      int capacity = Math.max(4, size + (size >> 1));
      attempts = Arrays.copyOf(attempts, capacity);
      counts = Arrays.copyOf(counts, capacity);
    }
    sorted = sorted && (size == 0 || attempts[size - 1] < attempt);
    attempts[size] = attempt;
    counts[size] = count;
    size++;
  }

  /** The count each of {@code wanted} committed, or -1 where it committed nothing here. */
  int[] countsOf(long[] wanted) {
    sortIfNeeded();
    int[] result = new int[wanted.length];
    for (int i = 0; i < wanted.length; i++) {
      int at = Arrays.binarySearch(attempts, 0, size, wanted[i]);
      result[i] = at >= 0 ? counts[at] : -1;
    }
    return result;
  }

  /** Number of attempts with a commit. */
  int size() {
    sortIfNeeded();
    return size;
  }

  /** The attempts with a commit, ascending (a copy). */
  long[] attempts() {
    sortIfNeeded();
    return Arrays.copyOf(attempts, size);
  }

  /** Their counts, in the order of {@link #attempts()} (a copy). */
  int[] counts() {
    sortIfNeeded();
    return Arrays.copyOf(counts, size);
  }

  /** Bytes of heap the arrays take (their capacity), for the heap estimate. */
  long heapBytes() {
    return 12L * attempts.length;
  }

  private void sortIfNeeded() {
    if (sorted) {
      return;
    }
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    // Stable, so that of two commits of one attempt the later wins below.
    Arrays.sort(order, (a, b) -> Long.compare(attempts[a], attempts[b]));
    long[] sortedAttempts = new long[attempts.length];
    int[] sortedCounts = new int[counts.length];
    int n = 0;
    for (int i = 0; i < size; i++) {
      int from = order[i];
      if (n > 0 && sortedAttempts[n - 1] == attempts[from]) {
        sortedCounts[n - 1] = counts[from];
      } else {
        sortedAttempts[n] = attempts[from];
        sortedCounts[n] = counts[from];
        n++;
      }
    }
    attempts = sortedAttempts;
    counts = sortedCounts;
    size = n;
    sorted = true;
  }
}
