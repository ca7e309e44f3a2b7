package io.sluice.coordinator.assignment;

import java.util.Arrays;

/**
 * Picks the best {@code limit} candidates without sorting them all: one pass with a bounded heap,
 * O(n log limit), then a sort of the few kept. With thousands of servers and a shuffle spread over
 * a hundred, that is the difference between a few and a few hundred microseconds.
 */
final class TopCandidates {
  private TopCandidates() {}

  /** Indexes of the best {@code min(limit, size)} candidates, best first. */
  static int[] select(Candidates candidates, int limit) {
    int n = candidates.length();
    int keep = Math.min(limit, candidates.size);
    int[] kept = new int[keep];
    int size = 0;
    for (int i = 0; i < n; i++) {
      if (!candidates.qualifies(i)) {
        continue;
      }
      if (size < keep) {
        // A min-heap on preference: the root is the worst candidate kept so far.
        kept[size] = i;
        siftUp(candidates, kept, size++);
      } else if (candidates.weights[i] >= candidates.weights[kept[0]]
          && candidates.better(i, kept[0])) {
        kept[0] = i;
        siftDown(candidates, kept, 0, keep);
      }
    }
    return sorted(candidates, kept);
  }

  /** {@code indexes} ordered best first (a new array). */
  static int[] sorted(Candidates candidates, int[] indexes) {
    Integer[] boxed = new Integer[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      boxed[i] = indexes[i];
    }
    Arrays.sort(boxed, candidates::compare);
    int[] result = new int[boxed.length];
    for (int i = 0; i < boxed.length; i++) {
      result[i] = boxed[i];
    }
    return result;
  }

  private static void siftUp(Candidates c, int[] heap, int i) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!c.better(heap[parent], heap[i])) {
        return;
      }
      swap(heap, parent, i);
      i = parent;
    }
  }

  private static void siftDown(Candidates c, int[] heap, int i, int size) {
    while (true) {
      int left = 2 * i + 1;
      if (left >= size) {
        return;
      }
      int worst = left;
      int right = left + 1;
      if (right < size && c.better(heap[worst], heap[right])) {
        worst = right;
      }
      if (!c.better(heap[i], heap[worst])) {
        return;
      }
      swap(heap, i, worst);
      i = worst;
    }
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
