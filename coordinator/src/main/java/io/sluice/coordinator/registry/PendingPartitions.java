package io.sluice.coordinator.registry;

import java.util.ArrayDeque;

/**
 * Partitions this coordinator assigned to one server that the server's heartbeats do not show yet.
 * They count as load, so that assignments made between two heartbeats do not all pick the same
 * servers. A batch leaves when heartbeats report as many more partitions held (oldest batch first), or
 * when it is older than the pending expiry: a server reports a partition only once data for it
 * arrives, which may be long after the assignment, or never.
 */
final class PendingPartitions {
  private final ArrayDeque<Batch> batches = new ArrayDeque<>();
  // Written under the lock; read without it so that servers with nothing pending cost one read.
  private volatile long total;

  synchronized void add(long nowMillis, int partitions) {
    if (partitions <= 0) {
      return;
    }
    batches.addLast(new Batch(nowMillis, partitions));
    total += partitions;
  }

  /** Heartbeats show {@code partitions} more held than before: that many are no longer pending. */
  synchronized void reported(long partitions) {
    long left = partitions;
    while (left > 0 && !batches.isEmpty()) {
      Batch oldest = batches.peekFirst();
      if (oldest.partitions <= left) {
        batches.removeFirst();
        left -= oldest.partitions;
        total -= oldest.partitions;
      } else {
        oldest.partitions -= left;
        total -= left;
        left = 0;
      }
    }
  }

  /** Partitions still pending at {@code nowMillis}; drops batches older than {@code expiryMillis}. */
  long current(long nowMillis, long expiryMillis) {
    if (total == 0) {
      return 0;
    }
    synchronized (this) {
      while (!batches.isEmpty() && nowMillis - batches.peekFirst().assignedMillis >= expiryMillis) {
        total -= batches.removeFirst().partitions;
      }
      return total;
    }
  }

  private static final class Batch {
    final long assignedMillis;
    long partitions;

    Batch(long assignedMillis, long partitions) {
      this.assignedMillis = assignedMillis;
      this.partitions = partitions;
    }
  }
}
