package io.sluice.client.spark;

import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.MapStatus$;
import org.apache.spark.storage.BlockManagerId;

/**
 * The Spark calls whose signatures differ between Spark 3.5 and 4.x, kept in one place so that a
 * Spark 4 build needs to change only this class ({@code MapStatus.apply} takes a checksum there).
 */
public final class SparkCompat {
  private SparkCompat() {}

  public static MapStatus mapStatus(BlockManagerId location, long[] partitionLengths, long mapId) {
    return MapStatus$.MODULE$.apply(location, partitionLengths, mapId);
  }
}
