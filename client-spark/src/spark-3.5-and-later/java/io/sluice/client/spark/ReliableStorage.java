package io.sluice.client.spark;

import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDriverComponents;

/**
 * Whether this Spark line lets a shuffle plugin declare its storage reliable (this copy: Spark 3.5
 * and 4, which have {@code ShuffleDriverComponents.supportsReliableStorage}; Spark 3.3 and 3.4
 * compile the copy in {@code client-spark/src/spark-3.3-3.4/java}).
 */
final class ReliableStorage {
  /** True: Sluice declares its storage reliable through {@link SluiceShuffleDataIO}. */
  static final boolean DECLARED = true;

  private ReliableStorage() {}

  /** Spark's local-disk driver components, declaring storage reliable. */
  static ShuffleDriverComponents driverComponents() {
    return new LocalDiskShuffleDriverComponents() {
      @Override
      public boolean supportsReliableStorage() {
        return true;
      }
    };
  }
}
