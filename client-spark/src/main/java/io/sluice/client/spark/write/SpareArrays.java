package io.sluice.client.spark.write;

import java.util.ArrayDeque;

/**
 * Byte arrays that a thread's finished map tasks leave for the next map task it runs. A map task's
 * partition buffers grow to the block size and past it, and live until the task ends: allocated
 * anew by every task, they were 7-8% of what a {@code groupByKey} of many small records allocated
 * (in a JFR allocation profile), and young collections copied them while they lived. Reused, a
 * thread allocates them once. At most {@link #MAX_BYTES} are kept per thread; while no task holds
 * them they are outside Spark's memory manager, as the sort shuffle's per-partition file buffers
 * are. Only the thread that owns them touches them (Spark runs a task's writer on its task thread).
 */
final class SpareArrays {
  /** The most bytes of arrays one thread keeps between tasks. */
  static final long MAX_BYTES = 16L << 20;

  private static final ThreadLocal<SpareArrays> OF_THREAD =
      ThreadLocal.withInitial(SpareArrays::new);

  private final ArrayDeque<byte[]> arrays = new ArrayDeque<>();
  private long bytes;

  private SpareArrays() {}

  static SpareArrays ofThisThread() {
    return OF_THREAD.get();
  }

  /** A kept array (of any length, holding old bytes), or null when none is left. */
  byte[] take() {
    byte[] array = arrays.pollFirst();
    if (array != null) {
      bytes -= array.length;
    }
    return array;
  }

  /** Keeps {@code array} for a later task unless that would pass {@link #MAX_BYTES}. */
  void give(byte[] array) {
    if (bytes + array.length <= MAX_BYTES) {
      arrays.addFirst(array);
      bytes += array.length;
    }
  }

  long bytes() {
    return bytes;
  }
}
