package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MetricsScrape;
import io.sluice.testcluster.MiniCluster;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * Map attempts that fail half-way through pushing, and duplicate attempts that both finish writing
 * (as speculative copies do), leave blocks on the servers that no reader may count: results stay
 * exactly right. Spark runs with {@code local[4,3]}: a failed task is retried up to 3 times.
 */
class TaskFailureTest {
  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new MiniCluster(3, Map.of());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  private static List<Tuple2<Integer, Long>> job(
      SparkConf conf, boolean failMidPush, boolean failAfterCommit) {
    SparkSession spark =
        SparkSessions.start(
            conf, Map.of("spark.sluice.block.size", "16k", "spark.sluice.push.batch.size", "64k"));
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> slices = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        slices.add(i);
      }
      return sc.parallelize(slices, 8)
          .mapPartitionsToPair(
              it -> {
                int slice = it.next();
                TaskContext task = TaskContext.get();
                boolean firstAttempt = task.attemptNumber() == 0;
                if (failAfterCommit && firstAttempt && slice % 3 == 0) {
                  // Runs after the shuffle writer committed: this attempt's output is complete on
                  // the servers, yet Spark reruns the task, as when a speculative copy also
                  // finished.
                  task.addTaskCompletionListener(
                      (org.apache.spark.util.TaskCompletionListener)
                          ctx -> {
                            throw new IllegalStateException(
                                "injected failure after commit of map " + slice);
                          });
                }
                return new java.util.Iterator<Tuple2<Integer, Long>>() {
                  long i;

                  @Override
                  public boolean hasNext() {
                    return i < 50_000;
                  }

                  @Override
                  public Tuple2<Integer, Long> next() {
                    if (failMidPush && firstAttempt && slice % 2 == 1 && i == 30_000) {
                      throw new IllegalStateException(
                          "injected failure in map " + slice + " after pushing part of its output");
                    }
                    long v = slice * 1_000_000L + i++;
                    return new Tuple2<>((int) (v % 1_009), v);
                  }
                };
              })
          .reduceByKey(Long::sum, 7)
          .sortByKey()
          .collect();
    } finally {
      spark.stop();
    }
  }

  private static SparkConf sluice() {
    return SparkSessions.withSluice(SparkSessions.base("local[4,3]", "failures"), cluster);
  }

  @Test
  void mapTasksFailingAfterPartialPushesGiveExactResults() {
    List<Tuple2<Integer, Long>> expected =
        job(SparkSessions.base("local[4]", "reference"), false, false);
    long before = cluster.pushedBytes();
    assertEquals(expected, job(sluice(), true, false));
    assertTrue(cluster.pushedBytes() > before);
  }

  /**
   * A reduce task's second attempt (as a speculative copy is) reads its partition from the replica
   * first: with one partition on two servers, each attempt read one server, where both attempts
   * would read the primary if every attempt began there.
   */
  @Test
  void aRetriedReduceTaskReadsTheReplicaFirst() throws Exception {
    SparkConf conf = sluice().set("spark.sluice.replicas", "2");
    JobObserver observer = new JobObserver();
    double[] before = readBytesPerServer();
    SparkSession spark = SparkSessions.start(conf, Map.of());
    long count;
    try {
      spark.sparkContext().addSparkListener(observer);
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      count =
          sc.parallelize(List.of(0, 1, 2, 3), 4)
              .flatMapToPair(
                  slice -> {
                    List<Tuple2<Long, Long>> records = new ArrayList<>();
                    for (long i = 0; i < 50_000; i++) {
                      records.add(new Tuple2<>(slice * 1_000_000L + i, i));
                    }
                    return records.iterator();
                  })
              .partitionBy(new HashPartitioner(1))
              .mapPartitions(
                  records -> {
                    long n = 0;
                    while (records.hasNext()) {
                      records.next();
                      n++;
                    }
                    if (TaskContext.get().attemptNumber() == 0) {
                      throw new IllegalStateException("injected failure after reading " + n);
                    }
                    return List.of(n).iterator();
                  })
              .reduce(Long::sum);
    } finally {
      spark.stop();
    }
    double[] after = readBytesPerServer();

    assertEquals(200_000L, count);
    List<String> failures = observer.failures();
    assertEquals(1, failures.size(), failures.toString());
    assertTrue(failures.get(0).contains("injected failure"), failures.toString());
    assertTrue(
        observer.submissions().values().stream().allMatch(n -> n == 1),
        "no stage ran twice: " + observer.submissions());
    List<Double> served = new ArrayList<>();
    for (int i = 0; i < after.length; i++) {
      served.add(after[i] - before[i]);
    }
    served.sort(Comparator.reverseOrder());
    assertTrue(served.get(0) > 0, "bytes served per server: " + served);
    assertTrue(
        served.get(1) > 0.75 * served.get(0),
        "each attempt read a server of its own, bytes served per server: " + served);
  }

  private static double[] readBytesPerServer() throws Exception {
    double[] bytes = new double[cluster.servers().size()];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] =
          MetricsScrape.fetch(cluster.servers().get(i).httpPort())
              .sum("sluice_server_read_bytes_total");
    }
    return bytes;
  }

  @Test
  void duplicateCompletedAttemptsAreCountedOnce() {
    List<Tuple2<Integer, Long>> expected =
        job(SparkSessions.base("local[4]", "reference"), false, false);
    assertEquals(expected, job(sluice(), false, true));
  }
}
