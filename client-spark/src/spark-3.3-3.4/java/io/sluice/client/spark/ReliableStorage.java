package io.sluice.client.spark;

import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDriverComponents;

/**
 * Whether this Spark line lets a shuffle plugin declare its storage reliable (this copy: Spark 3.3
 * and 3.4, which cannot: {@code ShuffleDriverComponents.supportsReliableStorage} came with Spark
 * 3.5). On these lines Spark treats shuffle output as living on executors: dynamic allocation needs
 * shuffle tracking (or an external shuffle service), and when a whole worker host is lost the map
 * tasks that ran there run again. docs/client.md's compatibility table lists both.
 */
final class ReliableStorage {
  /** False: Spark keeps its own view of where shuffle output lives. */
  static final boolean DECLARED = false;

  private ReliableStorage() {}

  /** Spark's local-disk driver components, unchanged. */
  static ShuffleDriverComponents driverComponents() {
    return new LocalDiskShuffleDriverComponents();
  }
}
