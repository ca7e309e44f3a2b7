package io.sluice.server.flush;

/**
 * Indexes of sizes, largest first, taken one at a time: a binary max-heap over primitive arrays. A
 * flush round usually takes a few of many partitions, so building the heap (linear) and taking k of
 * them (k log n) costs less than sorting them all, and nothing is boxed. (The sort of boxed indexes
 * this replaced also shared {@code TimSort} with sorts of other element types, which made the JIT
 * compile both again and again.)
 */
final class LargestFirst {
  private final long[] sizes;
  private final int[] heap;
  private int size;

  LargestFirst(long[] sizes) {
    this.sizes = sizes;
    this.heap = new int[sizes.length];
    for (int i = 0; i < heap.length; i++) {
      heap[i] = i;
    }
    size = heap.length;
    for (int i = size / 2 - 1; i >= 0; i--) {
      siftDown(i);
    }
  }

  boolean hasNext() {
    return size > 0;
  }

  /** The index of the largest size not taken yet; call only when {@link #hasNext()}. */
  int next() {
    int top = heap[0];
    heap[0] = heap[--size];
    siftDown(0);
    return top;
  }

  private void siftDown(int at) {
    int moving = heap[at];
    while (true) {
      int child = 2 * at + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && sizes[heap[child + 1]] > sizes[heap[child]]) {
        child++;
      }
      if (sizes[heap[child]] <= sizes[moving]) {
        break;
      }
      heap[at] = heap[child];
      at = child;
    }
    heap[at] = moving;
  }
}
