package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.server.ServerOptions;
import io.sluice.testcluster.ProcessCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A black-holed server: one of three server processes is stopped with SIGSTOP, so that its port
 * still accepts connections but nothing answers, for three times {@code app.expiry}, between two
 * jobs that read the same shuffle. The driver's heart-beats to the silent server must not hold up
 * those to the others (they keep the application), and the silent server, once resumed, must not
 * expire the application for the time it did not run itself. The second job then reads every
 * partition where the first left it: the same answer, and its map stage is not run again.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PausedServerTest {
  private static final long EXPIRY_MILLIS = 3_000;
  private static final int SILENT = 2;

  private static ProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        ProcessCluster.forTests(3)
            .serverSetting(ServerOptions.APP_EXPIRY.key(), EXPIRY_MILLIS + "ms")
            .start();
  }

  @AfterAll
  static void stop() throws IOException, InterruptedException {
    if (cluster != null) {
      try {
        cluster.thaw(SILENT); // in case the test stopped half-way
      } finally {
        cluster.close();
      }
    }
  }

  @Test
  void aSilentServerCostsNoServerTheApplicationAndTheShuffleIsReadAgainWhole() throws Exception {
    JobObserver observer = new JobObserver();
    SparkConf conf =
        SparkSessions.withSluice(
                SparkSessions.base("local[2]", "paused-server"), cluster.coordinatorAddress())
            .set("spark.sluice.heartbeat.interval", "300ms");
    SparkSession spark = SparkSessions.start(conf, Map.of());
    spark.sparkContext().addSparkListener(observer);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> numbers = new ArrayList<>();
      for (int i = 0; i < 200_000; i++) {
        numbers.add(i);
      }
      JavaPairRDD<Integer, Long> shuffled =
          sc.parallelize(numbers, 8)
              .mapToPair(i -> new Tuple2<>(i % 1_009, (long) i))
              .partitionBy(new HashPartitioner(12));
      List<Long> first = sums(shuffled);
      long expectedTotal = 199_999L * 200_000L / 2;
      assertEquals(expectedTotal, first.stream().mapToLong(Long::longValue).sum());
      for (int s = 0; s < 3; s++) {
        assertTrue(
            cluster.metric(s, "sluice_server_pushed_bytes_total") > 0,
            "server " + s + " holds part of the shuffle");
      }

      cluster.freeze(SILENT);
      try {
        assertOthersKeepTheApplication(3 * EXPIRY_MILLIS);
      } finally {
        cluster.thaw(SILENT);
      }
      // Resumed, the silent server hears the driver again, and must not count its own pause.
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * EXPIRY_MILLIS);
      while (System.nanoTime() < until) {
        assertEquals(
            1.0,
            cluster.metric(SILENT, "sluice_server_applications"),
            "the resumed server keeps the application");
        Thread.sleep(100);
      }

      List<Long> second = sums(shuffled);
      assertEquals(first, second, "the shuffle read again, whole");
      // Stages 0 and 1 are the first job's; the second job's map stage (2) is skipped, since its
      // output is known, and only its reduce stage (3) runs.
      assertEquals(
          Map.of(0, 1, 1, 1, 3, 1),
          observer.submissions(),
          "stage submissions; task failures: " + observer.failures());
      assertTrue(observer.failures().isEmpty(), "no task failed: " + observer.failures());
    } finally {
      spark.stop();
    }
  }

  /** Per reduce partition, the sum of its values. */
  private static List<Long> sums(JavaPairRDD<Integer, Long> shuffled) {
    return shuffled
        .mapPartitions(
            it -> {
              long sum = 0;
              while (it.hasNext()) {
                sum += it.next()._2();
              }
              return List.of(sum).iterator();
            })
        .collect();
  }

  /** For {@code millis}, the servers that still answer keep the application registered. */
  private static void assertOthersKeepTheApplication(long millis) throws Exception {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (System.nanoTime() < until) {
      for (int s = 0; s < 3; s++) {
        if (s != SILENT) {
          assertEquals(
              1.0,
              cluster.metric(s, "sluice_server_applications"),
              "server " + s + " keeps the application while server " + SILENT + " is silent");
        }
      }
      Thread.sleep(100);
    }
  }
}
