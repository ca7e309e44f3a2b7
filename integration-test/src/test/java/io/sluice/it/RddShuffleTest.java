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

  @Test
  void groupByKey() {
    compare("groupByKey", Map.of(), sc -> pairs(sc, 100_000, 2_000).groupByKey(5)
        .mapValues(values -> {
          List<Long> sorted = new ArrayList<>();
          values.forEach(sorted::add);
          java.util.Collections.sort(sorted);
          return sorted;
        }).sortByKey().collect());
  }

  @Test
  void sortByKeyIsGloballyOrdered() {
    // Keys are unique, so the sorted order is fully determined.
    List<Tuple2<Long, Integer>> r = compare("sortByKey", Map.of(), sc ->
        pairs(sc, 100_000, 1_000_000).mapToPair(t -> new Tuple2<>(t._2() * 1_000_000L + t._1(),
            t._1())).sortByKey(false, 6).collect());
    for (int i = 1; i < r.size(); i++) {
      assertTrue(r.get(i - 1)._1() > r.get(i)._1());
    }
  }

  @Test
  void joinAndCogroup() {
    compare("join", Map.of(), sc -> {
      JavaPairRDD<Integer, Long> left = pairs(sc, 40_000, 3_000);
      JavaPairRDD<Integer, String> right = pairs(sc, 8_000, 5_000)
          .mapValues(v -> "r" + v);
      return left.join(right, 6).mapToPair(t -> new Tuple2<>(t._1(), t._2()._1() + ":"
          + t._2()._2())).sortByKey().collect().stream()
          .map(Tuple2::toString).sorted().toList();
    });
    compare("cogroup", Map.of(), sc -> {
      JavaPairRDD<Integer, Long> left = pairs(sc, 20_000, 3_000);
      JavaPairRDD<Integer, Long> right = pairs(sc, 20_000, 4_000);
      return left.cogroup(right, 5).mapValues(t -> {
        long a = 0;
        long b = 0;
        for (Long v : t._1()) {
          a += v;
        }
        for (Long v : t._2()) {
          b += v;
        }
        return a + "/" + b;
      }).sortByKey().collect();
    });
  }

  @Test
  void repartitionAndDistinct() {
    compare("repartition", Map.of(), sc -> pairs(sc, 50_000, 100_000).values().repartition(9)
        .collect().stream().sorted().toList());
    compare("distinct", Map.of(), sc -> pairs(sc, 50_000, 700).keys().distinct(4).collect()
        .stream().sorted().toList());
  }

  @Test
  void emptyPartitionsAndMapTasksWithoutRecords() {
    compare("empty", Map.of(), sc -> {
      List<Integer> few = List.of(1, 2, 3);
      // 16 map tasks, most of them empty; 32 reduce partitions, most of them empty.
      return sc.parallelize(few, 16).mapToPair(i -> new Tuple2<>(i, (long) i))
          .reduceByKey(Long::sum, 32).sortByKey().collect();
    });
    List<Object> none = compare("no-records", Map.of(), sc ->
        sc.parallelize(List.<Integer>of(), 4).mapToPair(i -> new Tuple2<>(i, i))
            .groupByKey(3).collect().stream().map(t -> (Object) t._1()).toList());
    assertTrue(none.isEmpty());
  }

  @Test
  void recordsLargerThanTheBlockSize() {
    compare("large-records", Map.of("spark.sluice.block.size", "16k"), sc ->
        sc.parallelize(List.of(0, 1, 2, 3, 4, 5, 6, 7), 4).mapToPair(i -> {
          byte[] big = new byte[100_000 + i * 1000];
          java.util.Arrays.fill(big, (byte) (int) i);
          return new Tuple2<>(i % 3, big);
        }).groupByKey(3).mapValues(values -> {
          long total = 0;
          for (byte[] b : values) {
            for (byte x : b) {
              total += x;
            }
            total += b.length;
          }
          return total;
        }).sortByKey().collect());
  }

  @Test
  void twoThousandReducePartitions() {
    List<Tuple2<Integer, Long>> r = compare("2000-partitions", Map.of(), sc ->
        pairs(sc, 100_000, 50_000).reduceByKey(Long::sum, 2000).sortByKey().collect());
    // The generator's keys repeat across slices: about 12,500 distinct keys over 2,000 partitions.
    assertTrue(r.size() > 12_000, "keys: " + r.size());
  }
}
