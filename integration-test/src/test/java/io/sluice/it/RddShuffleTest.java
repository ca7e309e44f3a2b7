package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.examples.SuiteData;
import io.sluice.testcluster.MiniCluster;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * RDD jobs give the same results through Sluice as through Spark's built-in shuffle, in this JVM
 * with settings the suite that runs on every Spark line ({@link SparkLinesSuiteTest}: the common
 * operators, 2,000 partitions, failed attempts) does not vary: Kryo, empty map tasks, records
 * larger than a block, more partitions than 2^24.
 */
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
  private static <T> List<T> compare(
      String name, Map<String, String> conf, Function<JavaSparkContext, List<T>> job) {
    List<T> builtin = run(SparkSessions.base("local[2]", name), conf, job);
    long pushedBefore = cluster.pushedBytes();
    List<T> sluice =
        run(SparkSessions.withSluice(SparkSessions.base("local[2]", name), cluster), conf, job);
    assertEquals(builtin, sluice, name + ": results differ");
    assertTrue(
        cluster.pushedBytes() > pushedBefore || sluice.isEmpty(),
        name + ": nothing went through Sluice");
    return sluice;
  }

  private static <T> List<T> run(
      SparkConf conf, Map<String, String> extra, Function<JavaSparkContext, List<T>> job) {
    SparkSession spark = SparkSessions.start(conf, extra);
    try {
      return job.apply(JavaSparkContext.fromSparkContext(spark.sparkContext()));
    } finally {
      spark.stop();
    }
  }

  private static JavaPairRDD<Integer, Long> pairs(JavaSparkContext sc, int n, int keys) {
    return SuiteData.pairs(sc, n, keys);
  }

  @Test
  void reduceByKeyWithKryo() {
    compare(
        "reduceByKey-kryo",
        Map.of("spark.serializer", "org.apache.spark.serializer.KryoSerializer"),
        sc -> pairs(sc, 200_000, 5_000).reduceByKey(Long::sum, 11).sortByKey().collect());
  }

  @Test
  void emptyPartitionsAndMapTasksWithoutRecords() {
    compare(
        "empty",
        Map.of(),
        sc -> {
          List<Integer> few = List.of(1, 2, 3);
          // 16 map tasks, most of them empty; 32 reduce partitions, most of them empty.
          return sc.parallelize(few, 16)
              .mapToPair(i -> new Tuple2<>(i, (long) i))
              .reduceByKey(Long::sum, 32)
              .sortByKey()
              .collect();
        });
    List<Object> none =
        compare(
            "no-records",
            Map.of(),
            sc ->
                sc
                    .parallelize(List.<Integer>of(), 4)
                    .mapToPair(i -> new Tuple2<>(i, i))
                    .groupByKey(3)
                    .collect()
                    .stream()
                    .map(t -> (Object) t._1())
                    .toList());
    assertTrue(none.isEmpty());
  }

  @Test
  void recordsLargerThanTheBlockSize() {
    compare(
        "large-records",
        Map.of("spark.sluice.block.size", "16k"),
        sc ->
            sc.parallelize(List.of(0, 1, 2, 3, 4, 5, 6, 7), 4)
                .mapToPair(
                    i -> {
                      byte[] big = new byte[100_000 + i * 1000];
                      java.util.Arrays.fill(big, (byte) (int) i);
                      return new Tuple2<>(i % 3, big);
                    })
                .groupByKey(3)
                .mapValues(
                    values -> {
                      long total = 0;
                      for (byte[] b : values) {
                        for (byte x : b) {
                          total += x;
                        }
                        total += b.length;
                      }
                      return total;
                    })
                .sortByKey()
                .collect());
  }

  /**
   * Spark's sort shuffle takes any partition count (above 2^24 it leaves its serialized path), so
   * Sluice does too. Running 16.7 million reduce tasks is not the point: a few partitions are read,
   * the last one (above 2^24) among them.
   */
  @Test
  void moreThanTwoToTheTwentyFourPartitions() {
    int partitions = (1 << 24) + 1;
    int[] read = {0, 7, 1 << 23, partitions - 1};
    List<List<String>> answer =
        compare(
            "2^24+1-partitions",
            Map.of(),
            sc -> {
              JavaPairRDD<Integer, Long> shuffled =
                  sc.parallelize(java.util.stream.IntStream.range(0, 4000).boxed().toList(), 2)
                      .mapToPair(
                          i ->
                              new Tuple2<>(
                                  i % 2 == 0
                                      ? read[(i / 2) % read.length]
                                      : (int) ((i * 2_654_435_761L) % partitions),
                                  (long) i))
                      .partitionBy(new HashPartitioner(partitions));
              List<Tuple2<Integer, Long>>[] chosen = shuffled.collectPartitions(read);
              // Records arrive in the order their blocks do, which no two shuffles share: compare
              // sorted.
              return java.util.Arrays.stream(chosen)
                  .map(records -> records.stream().map(Tuple2::toString).sorted().toList())
                  .toList();
            });
    assertEquals(read.length, answer.size());
    for (int i = 0; i < read.length; i++) {
      assertTrue(answer.get(i).size() >= 500, "partition " + read[i] + ": " + answer.get(i).size());
    }
  }
}
