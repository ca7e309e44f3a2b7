package io.sluice.examples;

import static org.apache.spark.sql.functions.col;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.MapOutputTrackerMaster;
import org.apache.spark.ShuffleStatus;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark 4 SQL job with Spark's order-independent shuffle checksums on: prints its answer and the
 * row checksum that every map task reported in its {@code MapStatus}, shuffle by shuffle. The
 * integration tests run it with the built-in shuffle and through Sluice and compare the two.
 *
 * <p>Reads the checksums from the driver's map output tracker, an internal Spark API: this job is a
 * test of the client, not an example to copy.
 */
public final class MapChecksumsJob {
  private MapChecksumsJob() {}

  public static void main(String[] args) {
    SparkSession spark =
        SparkSession.builder()
            .appName("sluice-map-checksums")
            .config("spark.sql.shuffle.orderIndependentChecksum.enabled", "true")
            // Fixed plans, so that both runs have the same shuffles and map tasks.
            .config("spark.sql.adaptive.enabled", "false")
            .getOrCreate();
    Row answer =
        spark
            .range(0, 200_000, 1, 4)
            .selectExpr("id % 1000 as k", "id as v", "repeat('x', id % 50) as s")
            .repartition(8, col("k"))
            .groupBy("k")
            .agg(
                org.apache.spark.sql.functions.sum("v").as("total"),
                org.apache
                    .spark
                    .sql
                    .functions
                    .max(org.apache.spark.sql.functions.length(col("s")))
                    .as("widest"))
            .selectExpr("count(*)", "sum(total)", "sum(widest)")
            .first();
    System.out.println("Answer: " + answer.mkString(","));
    MapOutputTrackerMaster tracker = (MapOutputTrackerMaster) SparkEnv.get().mapOutputTracker();
    List<Integer> shuffles = new ArrayList<>();
    scala.collection.Iterator<Object> ids = tracker.shuffleStatuses().keysIterator();
    while (ids.hasNext()) {
      shuffles.add((Integer) ids.next());
    }
    Collections.sort(shuffles);
    for (int shuffle : shuffles) {
      ShuffleStatus status = tracker.shuffleStatuses().get(shuffle).get();
      StringBuilder line = new StringBuilder("Map checksums of shuffle " + shuffle + ":");
      for (MapStatus map : status.mapStatuses()) {
        line.append(' ').append(map == null ? "missing" : Long.toHexString(map.checksumValue()));
      }
      System.out.println(line);
    }
    System.out.println(
        "Shuffle manager: "
            + spark.conf().get("spark.shuffle.manager", "sort")
            + ", Spark "
            + spark.version());
    spark.stop();
  }
}
