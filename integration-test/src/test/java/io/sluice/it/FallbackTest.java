package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MiniCluster;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * A coordinator with no servers to offer: the shuffle runs with Spark's sort shuffle (or, when
 * fallback is off, the job fails with a message naming the setting).
 */
class FallbackTest {

  private static List<Tuple2<Integer, Integer>> job(SparkConf conf) {
    SparkSession spark = SparkSessions.start(conf, Map.of());
    try {
      return JavaSparkContext.fromSparkContext(spark.sparkContext())
          .parallelize(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9), 3)
          .mapToPair(i -> new Tuple2<>(i % 4, i))
          .reduceByKey(Integer::sum, 2)
          .sortByKey()
          .collect();
    } finally {
      spark.stop();
    }
  }

  @Test
  void withoutServersTheSortShuffleTakesOver() throws Exception {
    try (MiniCluster empty = new MiniCluster(0, Map.of())) {
      List<Tuple2<Integer, Integer>> expected = job(SparkSessions.base("local[2]", "reference"));
      SparkConf conf =
          SparkSessions.withSluice(SparkSessions.base("local[2]", "fallback"), empty)
              .set("spark.sluice.fallback.enabled", "true");
      assertEquals(expected, job(conf));
      assertEquals(0, empty.pushedBytes());
    }
  }

  @Test
  void withFallbackOffTheJobFailsNamingTheSetting() throws Exception {
    try (MiniCluster empty = new MiniCluster(0, Map.of())) {
      SparkConf conf =
          SparkSessions.withSluice(SparkSessions.base("local[2]", "no-fallback"), empty);
      Exception e = assertThrows(Exception.class, () -> job(conf));
      StringBuilder messages = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      assertTrue(
          messages.toString().contains("spark.sluice.fallback.enabled"), messages.toString());
    }
  }
}
