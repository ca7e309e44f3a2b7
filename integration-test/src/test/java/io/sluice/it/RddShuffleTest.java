package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/** RDD jobs give the same results through Sluice as through Spark's built-in shuffle. */
class RddShuffleTest {
  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new MiniCluster(3, Map.of());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  /** Runs {@code job} with the built-in shuffle and with Sluice; returns both results. */
  private static <T> List<T> compare(String name, Map<String, String> conf,
      Function<JavaSparkContext, List<T>> job) {
    List<T> builtin = run(SparkSessions.base("local[2]", name), conf, job);
    long pushedBefore = cluster.pushedBytes();
    List<T> sluice = run(SparkSessions.withSluice(SparkSessions.base("local[2]", name), cluster),
        conf, job);
    assertEquals(builtin, sluice, name + ": results differ");
    assertTrue(cluster.pushedBytes() > pushedBefore || sluice.isEmpty(),
        name + ": nothing went through Sluice");
    return sluice;
  }

  private static <T> List<T> run(SparkConf conf, Map<String, String> extra,
      Function<JavaSparkContext, List<T>> job) {
    SparkSession spark = SparkSessions.start(conf, extra);
    try {
      return job.apply(JavaSparkContext.fromSparkContext(spark.sparkContext()));
    } finally {
      spark.stop();
    }
  }

  private static JavaPairRDD<Integer, Long> pairs(JavaSparkContext sc, int n, int keys) {
    List<Integer> seeds = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      seeds.add(i);
    }
    return sc.parallelize(seeds, 8).flatMapToPair(seed -> {
      List<Tuple2<Integer, Long>> out = new ArrayList<>();
      for (int i = 0; i < n / 8; i++) {
        long v = seed * 1_000_003L + i;
        out.add(new Tuple2<>((int) (v * 2654435761L % keys), v));
      }
      return out.iterator();
    });
  }

  @Test
  void reduceByKey() {
    List<Tuple2<Integer, Long>> r = compare("reduceByKey", Map.of(), sc ->
        pairs(sc, 200_000, 1_000).reduceByKey(Long::sum, 7).sortByKey().collect());
    assertEquals(1_000, r.size());
  }

  @Test
  void reduceByKeyWithKryo() {
    compare("reduceByKey-kryo", Map.of("spark.serializer",
        "org.apache.spark.serializer.KryoSerializer"), sc ->
        pairs(sc, 200_000, 5_000).reduceByKey(Long::sum, 11).sortByKey().collect());
  }
}
