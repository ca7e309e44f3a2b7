package io.sluice.examples;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * The deterministic inputs of the shuffle suites: {@link ShuffleSuiteJob} on every Spark line and
 * the integration tests that run Spark in their own JVM.
 */
public final class SuiteData {
  private SuiteData() {}

  /** About {@code n} (key, value) pairs over {@code keys} keys, in 8 map partitions. */
  public static JavaPairRDD<Integer, Long> pairs(JavaSparkContext sc, int n, int keys) {
    List<Integer> seeds = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      seeds.add(i);
    }
    return sc.parallelize(seeds, 8)
        .flatMapToPair(
            seed -> {
              List<Tuple2<Integer, Long>> out = new ArrayList<>();
              for (int i = 0; i < n / 8; i++) {
                long v = seed * 1_000_003L + i;
                out.add(new Tuple2<>((int) (v * 2654435761L % keys), v));
              }
              return out.iterator();
            });
  }

  /** {@code n} rows (k, v, s) over 997 keys, in 6 partitions. */
  public static Dataset<Row> facts(SparkSession spark, long n) {
    return spark
        .range(0, n, 1, 6)
        .selectExpr("id % 997 as k", "id as v", "concat('row-', cast(id as string)) as s");
  }

  /** The left side of a skewed join: key 0 holds about half of its {@code n} rows. */
  public static Dataset<Row> skewedLeft(SparkSession spark, long n) {
    return spark
        .range(0, n, 1, 8)
        .selectExpr("case when id % 2 = 0 then 0 else id % 5000 end as k", "id as v");
  }

  /** The right side of a skewed join: 20,000 rows over the left side's 5,000 keys. */
  public static Dataset<Row> skewedRight(SparkSession spark) {
    return spark.range(0, 20_000, 1, 4).selectExpr("id % 5000 as k", "id as w");
  }
}
