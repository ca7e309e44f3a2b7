package io.sluice.client.spark;

import io.sluice.client.spark.write.RowChecksums;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.MapStatus$;
import org.apache.spark.storage.BlockManagerId;

/**
 * The writer's calls into Spark whose signatures differ between Spark lines (this copy: Spark 3.3,
 * 3.4 and 3.5, Scala 2.12, from {@code client-spark/src/spark-3/java}; Spark 4 has its own).
 */
public final class SparkCompat {
  private SparkCompat() {}

  /** Spark 3.5 has no row-based checksums. */
  public static RowChecksums rowChecksums(ShuffleDependency<?, ?, ?> dependency) {
    return RowChecksums.NONE;
  }

  public static MapStatus mapStatus(
      BlockManagerId location, long[] partitionLengths, long mapId, RowChecksums checksums) {
    return MapStatus$.MODULE$.apply(location, partitionLengths, mapId);
  }
}
