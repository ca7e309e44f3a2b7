package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MiniCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Executors in JVMs of their own ({@code local-cluster[2,1,1024]}), loading the shaded client jar
 * from {@code spark.executor.extraClassPath}, as on a real cluster.
 */
class LocalClusterTest {

  @Test
  @Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
  void executorsInSeparateJvmsShuffleThroughSluice() throws Exception {
    try (MiniCluster cluster = new MiniCluster(2, Map.of())) {
      String classPath = Artifacts.shadedClientJar() + ":" + Artifacts.testClasses();
      SparkConf conf =
          SparkSessions.withSluice(
                  SparkSessions.base("local-cluster[2,1,1024]", "local-cluster"), cluster)
              .set("spark.executor.extraClassPath", classPath)
              .set("spark.executor.memory", "512m")
              .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer");
      SparkSession spark = SparkSessions.start(conf, Map.of());
      List<Tuple2<Integer, Long>> result;
      try {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        List<Integer> seeds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          seeds.add(i);
        }
        result =
            sc.parallelize(seeds, 6)
                .flatMapToPair(
                    seed -> {
                      List<Tuple2<Integer, Long>> out = new ArrayList<>();
                      for (long i = 0; i < 20_000; i++) {
                        out.add(new Tuple2<>((int) ((seed * 20_000 + i) % 101), 1L));
                      }
                      return out.iterator();
                    })
                .reduceByKey(Long::sum, 5)
                .sortByKey()
                .collect();
        assertEquals(2, sc.sc().getExecutorIds().size(), "two executor JVMs");
      } finally {
        spark.stop();
      }
      assertEquals(101, result.size());
      long total = result.stream().mapToLong(Tuple2::_2).sum();
      assertEquals(120_000, total);
      assertTrue(cluster.pushedBytes() > 0, "the executors pushed through Sluice");
    }
  }
}
