package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Await;
import io.sluice.testcluster.MiniCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Executors come and go while their map output stays on Sluice: losing an executor JVM re-runs none
 * of the map tasks it ran, and dynamic allocation works with neither an external shuffle service
 * nor shuffle tracking, releasing idle executors. Executors run in JVMs of their own ({@code
 * local-cluster}), loading the shaded client jar.
 */
@Timeout(value = 6, unit = java.util.concurrent.TimeUnit.MINUTES)
class ExecutorLossTest {
  private static final int MAPS = 6;
  private static final int MAP_STAGE = 0;

  private static MiniCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = new MiniCluster(2, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  private static SparkConf conf(String name) throws Exception {
    String classPath = Artifacts.shadedClientJar() + ":" + Artifacts.testClasses();
    return SparkSessions.withSluice(SparkSessions.base("local-cluster[2,1,1024]", name), cluster)
        .set("spark.executor.extraClassPath", classPath)
        .set("spark.executor.memory", "512m")
        .set("spark.task.maxFailures", "4");
  }

  /** Counts per key, the keys spread over every map. */
  private static List<Tuple2<Integer, Long>> job(JavaSparkContext sc, long slowReduceMillis) {
    return counts(sc, slowReduceMillis).collect();
  }

  private static JavaRDD<Tuple2<Integer, Long>> counts(JavaSparkContext sc, long slowReduceMillis) {
    List<Integer> seeds = new ArrayList<>();
    for (int i = 0; i < MAPS; i++) {
      seeds.add(i);
    }
    return sc.parallelize(seeds, MAPS)
        .flatMapToPair(
            seed -> {
              List<Tuple2<Integer, Long>> out = new ArrayList<>();
              for (long i = 0; i < 20_000; i++) {
                out.add(new Tuple2<>((int) ((seed * 20_000 + i) % 101), 1L));
              }
              return out.iterator();
            })
        .reduceByKey(Long::sum, 4)
        .mapPartitions(
            it -> {
              // Keeps reduce tasks running long enough for an executor to die under them.
              Thread.sleep(slowReduceMillis);
              return it;
            });
  }

  private static void assertCounts(List<Tuple2<Integer, Long>> result) {
    assertEquals(101, result.size());
    assertEquals(MAPS * 20_000L, result.stream().mapToLong(Tuple2::_2).sum());
  }

  @Test
  void losingAnExecutorDuringTheReduceStageRerunsNoMapTask() throws Exception {
    AtomicLong killedPid = new AtomicLong();
    JobObserver observer =
        new JobObserver()
            .onceWhen(
                e -> e.stageId() != MAP_STAGE && !e.end(),
                () -> killedPid.set(killOneExecutor().orElse(-1L)));
    SparkSession spark = SparkSessions.start(conf("executor-loss"), Map.of());
    spark.sparkContext().addSparkListener(observer);
    try {
      List<Tuple2<Integer, Long>> result =
          job(JavaSparkContext.fromSparkContext(spark.sparkContext()), 3_000);
      assertCounts(result);
    } finally {
      spark.stop();
    }
    assertTrue(killedPid.get() > 0, "an executor JVM was killed");
    assertEquals(
        MAPS,
        observer.taskStarts().get(MAP_STAGE),
        "map tasks started; failures: " + observer.failures());
    assertEquals(1, observer.submissions().get(MAP_STAGE), "the map stage ran once");
    assertFalse(observer.failures().isEmpty(), "the killed executor's reduce task failed");
  }

  @Test
  void dynamicAllocationWithoutShuffleServiceOrTrackingReleasesIdleExecutors() throws Exception {
    // SparkContext refuses to start here unless the shuffle output is declared reliable. The
    // shuffle's output outlives the executors that wrote it: the second job reads it from the
    // servers (on executors started anew) and runs no map task.
    JobObserver observer =
        twoJobsAcrossReleasedExecutors(dynamicAllocation(conf("dynamic-allocation")));
    assertEquals(
        MAPS,
        observer.taskStarts().get(MAP_STAGE),
        "map tasks started over both jobs; failures: " + observer.failures());
  }

  @Test
  void aFallenBackShuffleLostWithItsReleasedExecutorsRerunsItsMapsWithoutAFetchFailure()
      throws Exception {
    // No server carries the tag, so the coordinator places nothing and the shuffle falls back to
    // Spark's sort shuffle: its files live on the executors that dynamic allocation releases, and
    // Spark must know they went before it reads, and run the maps again rather than fail
    // fetching from executors that are gone.
    long pushedBefore = cluster.pushedBytes();
    JobObserver observer =
        twoJobsAcrossReleasedExecutors(
            dynamicAllocation(conf("fallback-dynamic-allocation"))
                .set("spark.sluice.server.tags", "no-server-has-this-tag")
                .set("spark.sluice.fallback.enabled", "true"));
    assertEquals(pushedBefore, cluster.pushedBytes(), "the shuffle fell back");
    assertEquals(List.of(), observer.failures(), "no task failed");
    // Spark forgets a finished job's stages: the second job's map stage is stage 2.
    assertEquals(
        Map.of(MAP_STAGE, MAPS, 1, 4, 2, MAPS, 3, 4),
        observer.taskStarts(),
        "tasks started per stage: the second job ran every map again");
  }

  /**
   * Runs the counts job, waits until dynamic allocation released every executor, and runs it again
   * on the same RDD; both answers are checked. Returns Spark's view of the two jobs.
   */
  private static JobObserver twoJobsAcrossReleasedExecutors(SparkConf conf) throws Exception {
    SparkSession spark = SparkSessions.start(conf, Map.of());
    JobObserver observer = new JobObserver();
    spark.sparkContext().addSparkListener(observer);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaRDD<Tuple2<Integer, Long>> counts = counts(sc, 0);
      assertCounts(counts.collect());
      Await.until(() -> sc.sc().getExecutorIds().isEmpty(), "idle executors to be released");
      assertCounts(counts.collect());
    } finally {
      spark.stop();
    }
    return observer;
  }

  /** Dynamic allocation as a Sluice user runs it: no shuffle service, no shuffle tracking. */
  private static SparkConf dynamicAllocation(SparkConf conf) {
    return conf.set("spark.dynamicAllocation.enabled", "true")
        .set("spark.dynamicAllocation.shuffleTracking.enabled", "false")
        .set("spark.shuffle.service.enabled", "false")
        .set("spark.dynamicAllocation.minExecutors", "0")
        .set("spark.dynamicAllocation.initialExecutors", "2")
        .set("spark.dynamicAllocation.maxExecutors", "2")
        .set("spark.dynamicAllocation.executorIdleTimeout", "2s");
  }

  /** Kills one executor JVM of this test's local cluster with SIGKILL; returns its pid. */
  private static Optional<Long> killOneExecutor() {
    Optional<ProcessHandle> executor =
        ProcessHandle.current()
            .descendants()
            .filter(p -> p.info().commandLine().orElse("").contains("CoarseGrainedExecutorBackend"))
            .findFirst();
    executor.ifPresent(ProcessHandle::destroyForcibly);
    return executor.map(ProcessHandle::pid);
  }
}
