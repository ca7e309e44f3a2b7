package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Await;
import io.sluice.testcluster.ProcessCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A shuffle server killed with SIGKILL while a job runs, with and without replication: the answer
 * always equals the built-in shuffle's, and Spark's listener shows the cost: no stage re-run with
 * two copies of each partition, exactly one re-run of the map stage with one. Three server
 * processes and a coordinator are shared by the class; a killed server is started again (on the
 * same port) before the next test.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class ServerLossTest {
  static final int MAPS = 16;
  static final int REDUCES = 8;
  private static final int RECORDS_PER_MAP = 40_000;

  /** The map stage's id: the job's first stage. */
  static final int MAP_STAGE = 0;

  private static ProcessCluster cluster;
  private static List<Tuple2<Integer, long[]>> expected;
  private final List<Integer> killed = new ArrayList<>();
  private final List<Integer> frozen = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = ProcessCluster.forTests(3).start();
    expected = job(SparkSessions.base("local[2]", "reference"), new JobObserver());
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  @AfterEach
  void restartKilledServers() throws Exception {
    for (int i : frozen) {
      cluster.thaw(i);
    }
    for (int i : killed) {
      cluster.start(i);
    }
    if (!frozen.isEmpty()) {
      cluster.awaitLive(3);
    }
  }

  /**
   * Per reduce partition: its index, record count, and sums of keys and values, collected on the
   * reduce side so that every shuffled record counts. Tasks wait for a rolling restart only while
   * one runs (see {@link RollingRestart}).
   */
  static List<Tuple2<Integer, long[]>> job(SparkConf conf, JobObserver observer) {
    return job(conf, observer, 0, null);
  }

  /**
   * {@link #job(SparkConf, JobObserver)} on a cluster of executor JVMs.
   *
   * @param executors how many executors to wait for before the job starts
   * @param reduceGate if not null, a file that every reduce task waits for before it reads on: the
   *     test creates it after it has disturbed the tasks it knows to be running
   */
  static List<Tuple2<Integer, long[]>> job(
      SparkConf conf, JobObserver observer, int executors, Path reduceGate) {
    SparkSession spark = SparkSessions.start(conf, Map.of());
    spark.sparkContext().addSparkListener(observer);
    String gate = reduceGate == null ? null : reduceGate.toString();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      try {
        Await.until(() -> sc.sc().getExecutorIds().size() >= executors, executors + " executors");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for executors", e);
      }
      List<Integer> maps = new ArrayList<>();
      for (int i = 0; i < MAPS; i++) {
        maps.add(i);
      }
      List<Tuple2<Integer, long[]>> result =
          new ArrayList<>(
              sc.parallelize(maps, MAPS)
                  .mapPartitionsToPair(
                      it -> {
                        int map = it.next();
                        // Records are made as the writer consumes them, so that a map task that
                        // waits for a rolling restart has pushed part of its output before and
                        // pushes the rest after.
                        return new Iterator<Tuple2<Long, Long>>() {
                          private long i;

                          @Override
                          public boolean hasNext() {
                            return i < RECORDS_PER_MAP;
                          }

                          @Override
                          public Tuple2<Long, Long> next() {
                            if (i == RECORDS_PER_MAP / 2) {
                              RollingRestart.midMap(map);
                            }
                            long key = map * 1_000_003L + i++ * 7919;
                            return new Tuple2<>(key, key * 31 + map);
                          }
                        };
                      })
                  .partitionBy(new HashPartitioner(REDUCES))
                  .mapPartitionsWithIndex(
                      (index, it) -> {
                        long[] sums = new long[3];
                        boolean first = true;
                        while (it.hasNext()) {
                          Tuple2<Long, Long> r = it.next();
                          if (first) {
                            RollingRestart.midReduce(index);
                            awaitFile(gate);
                            first = false;
                          }
                          sums[0]++;
                          sums[1] += r._1();
                          sums[2] += r._2();
                        }
                        return List.of(new Tuple2<>(index, sums)).iterator();
                      },
                      true)
                  .collect());
      result.sort((a, b) -> Integer.compare(a._1(), b._1()));
      return result;
    } finally {
      spark.stop();
    }
  }

  /**
   * Waits (at most 90 s) until {@code path} exists; at once if it is null. Runs in reduce tasks,
   * also in a standalone cluster's executors, whose class path holds this module's classes but not
   * common's test jar: so no {@code Await} here.
   */
  private static void awaitFile(String path) throws InterruptedException {
    if (path == null) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!Files.exists(Path.of(path))) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("timed out waiting for the file " + path);
      }
      Thread.sleep(20);
    }
  }

  private JobObserver runKilling(int replicas, Predicate<JobObserver.TaskEvent> when) {
    return runDisturbed(replicas, when, victim -> cluster.kill(victim));
  }

  /** A fault applied to one server process. */
  @FunctionalInterface
  private interface Fault {
    void apply(int server) throws Exception;
  }

  private JobObserver runDisturbed(
      int replicas, Predicate<JobObserver.TaskEvent> when, Fault fault) {
    return runDisturbed(replicas, when, fault, true);
  }

  /**
   * @param restart whether the disturbed server is to be started again after the test
   */
  private JobObserver runDisturbed(
      int replicas, Predicate<JobObserver.TaskEvent> when, Fault fault, boolean restart) {
    int victim = 1;
    AtomicInteger faults = new AtomicInteger();
    JobObserver observer =
        new JobObserver()
            .onceWhen(
                when,
                () -> {
                  try {
                    fault.apply(victim);
                    faults.incrementAndGet();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    if (restart) {
      killed.add(victim);
    }
    List<Tuple2<Integer, long[]>> answer = job(conf(replicas), observer);
    assertEquals(1, faults.get(), "the server was disturbed while the job ran");
    assertAnswer(answer);
    return observer;
  }

  private static SparkConf conf(int replicas) {
    return SparkSessions.withSluice(
            SparkSessions.base("local[2,4]", "server-loss-" + replicas),
            cluster.coordinatorAddress())
        .set("spark.sluice.replicas", String.valueOf(replicas))
        .set("spark.sluice.block.size", "32k")
        .set("spark.sluice.push.batch.size", "128k");
  }

  private static void assertAnswer(List<Tuple2<Integer, long[]>> answer) {
    assertSameAnswer(expected, answer);
  }

  /**
   * Every partition of {@link #job}'s answer has the same count and sums as in {@code expected}.
   */
  static void assertSameAnswer(
      List<Tuple2<Integer, long[]>> expected, List<Tuple2<Integer, long[]>> answer) {
    assertEquals(expected.size(), answer.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i)._1(), answer.get(i)._1());
      assertEquals(
          List.of(expected.get(i)._2()[0], expected.get(i)._2()[1], expected.get(i)._2()[2]),
          List.of(answer.get(i)._2()[0], answer.get(i)._2()[1], answer.get(i)._2()[2]),
          "partition " + i);
    }
  }

  /** After a few map tasks finished, while others still push. */
  static Predicate<JobObserver.TaskEvent> midMap() {
    AtomicInteger ended = new AtomicInteger();
    return e -> e.stageId() == MAP_STAGE && e.end() && ended.incrementAndGet() == 4;
  }

  /** After the first reduce task finished, while others still read. */
  static Predicate<JobObserver.TaskEvent> midReduce() {
    return e -> e.stageId() != MAP_STAGE && e.end() && e.success();
  }

  static void assertNoStageRan(JobObserver observer, int times) {
    observer
        .submissions()
        .forEach(
            (stage, n) ->
                assertEquals(
                    times,
                    n,
                    "submissions of stage " + stage + "; task failures: " + observer.failures()));
  }

  @Test
  void withTwoCopiesAKillDuringTheMapStageRerunsNoStage() {
    JobObserver observer = runKilling(2, midMap());
    assertNoStageRan(observer, 1);
  }

  @Test
  void withTwoCopiesAKillDuringTheReduceStageRerunsNoStage() {
    JobObserver observer = runKilling(2, midReduce());
    assertNoStageRan(observer, 1);
  }

  @Test
  void withOneCopyAKillDuringTheMapStageRerunsTheMapStageOnce() {
    JobObserver observer = runKilling(1, midMap());
    assertEquals(
        2,
        observer.submissions().get(MAP_STAGE),
        "map stage submissions; task failures: " + observer.failures());
  }

  /**
   * A frozen server (SIGSTOP, as in a long pause or on a hung disk) keeps its connections open and
   * answers nothing until the job is over: pushes to it and reads from it are given up within
   * {@code transport.liveness.timeout}, not {@code transport.request.timeout}, so writers move to
   * other servers and readers read the replicas.
   */
  private JobObserver runFreezing(int replicas, Predicate<JobObserver.TaskEvent> when) {
    return runDisturbed(
        replicas,
        when,
        victim -> {
          frozen.add(victim);
          cluster.freeze(victim);
        },
        false);
  }

  @Test
  void withTwoCopiesAServerFrozenDuringTheMapStageRerunsNoStage() {
    JobObserver observer = runFreezing(2, midMap());
    assertNoStageRan(observer, 1);
  }

  @Test
  void withTwoCopiesAServerFrozenDuringTheReduceStageRerunsNoStage() {
    JobObserver observer = runFreezing(2, midReduce());
    assertNoStageRan(observer, 1);
  }

  @Test
  void withOneCopyAServerFrozenDuringTheMapStageRerunsTheMapStageOnce() {
    JobObserver observer = runFreezing(1, midMap());
    assertEquals(
        2,
        observer.submissions().get(MAP_STAGE),
        "map stage submissions; task failures: " + observer.failures());
  }

  /**
   * Frozen mid-map and resumed mid-reduce, as a long pause that ends: the resumed server missed
   * blocks and commits while it was given up, and readers that reach it again must neither take its
   * partial copy for the whole nor keep a block twice.
   */
  @Test
  void withTwoCopiesAServerFrozenMidMapAndResumedMidReduceServesNoStaleOrDuplicateData() {
    int victim = 1;
    frozen.add(victim);
    AtomicInteger resumed = new AtomicInteger();
    JobObserver observer =
        new JobObserver()
            .onceWhen(
                midMap(),
                () -> {
                  try {
                    cluster.freeze(victim);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                })
            .onceWhen(
                midReduce(),
                () -> {
                  try {
                    cluster.thaw(victim);
                    resumed.incrementAndGet();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    assertAnswer(job(conf(2), observer));
    assertEquals(1, resumed.get(), "the server was resumed while reduce tasks ran");
    assertNoStageRan(observer, 1);
  }

  @Test
  void withTwoCopiesAServerRestartedOnItsPortMidMapRerunsNoStageAndComesBackIntoUse()
      throws Exception {
    JobObserver observer =
        runDisturbed(
            2,
            midMap(),
            victim -> {
              cluster.kill(victim);
              cluster.start(victim);
            });
    assertNoStageRan(observer, 1);
    killed.clear();
    // The application of the next job is new to the restarted server; its data goes there again.
    double before = cluster.metric(1, "sluice_server_pushed_bytes_total");
    assertAnswer(job(conf(2), new JobObserver()));
    assertTrue(
        cluster.metric(1, "sluice_server_pushed_bytes_total") > before,
        "the restarted server takes data again");
  }

  @Test
  void withTwoCopiesADrainingServerStopsMidMapWithoutAStageRerun() {
    JobObserver observer = runDisturbed(2, midMap(), victim -> cluster.stop(victim));
    assertNoStageRan(observer, 1);
  }

  /**
   * Restarts every server one at a time, twice over, with SIGTERM as {@code bin/stop-server.sh}
   * sends it, while the job runs: three times during the map stage and three times during the
   * reduce stage. Tasks wait at points in their work for the restarts to have advanced, so that
   * each restart meets map tasks halfway through their pushes and reduce tasks halfway through
   * their reads, however fast or slow the machine is.
   */
  @Test
  void withTwoCopiesARollingRestartOfEveryServerLosesNothingAndFailsNoTask() throws Exception {
    int servers = 3;
    RollingRestart.begin();
    Thread restarts =
        new Thread(
            () -> {
              try {
                RollingRestart.awaitPushing();
                for (int round = 0; round < 2 * servers; round++) {
                  cluster.stop(round % servers);
                  cluster.start(round % servers);
                  RollingRestart.restarted();
                }
              } catch (Exception e) {
                RollingRestart.fail(e);
              }
            },
            "rolling-restart");
    restarts.setDaemon(true);
    restarts.start();
    try {
      JobObserver observer = new JobObserver();
      List<Tuple2<Integer, long[]>> answer = job(conf(2), observer);
      restarts.join(TimeUnit.MINUTES.toMillis(3));
      assertEquals(2 * servers, RollingRestart.done(), "restarts while the job ran");
      assertAnswer(answer);
      assertNoStageRan(observer, 1);
      assertEquals(List.of(), observer.failures(), "task failures");
      for (int i = 0; i < servers; i++) {
        assertTrue(
            cluster.metric(i, "sluice_server_recovered_partitions_total") >= 1,
            "server " + i + " served its data again after its restart");
      }
    } finally {
      RollingRestart.end();
      restarts.join(TimeUnit.MINUTES.toMillis(3));
    }
    cluster.awaitLive(servers);
  }

  /**
   * Where tasks of the job wait for a rolling restart to have advanced. Spark runs tasks in this
   * JVM ({@code local[2,4]}), so they see these static fields.
   */
  static final class RollingRestart {
    private static final long WAIT_NANOS = TimeUnit.MINUTES.toNanos(3);
    private static volatile boolean active;
    private static volatile boolean pushing;
    private static volatile Exception failure;
    private static final AtomicInteger RESTARTS = new AtomicInteger();

    static void begin() {
      RESTARTS.set(0);
      failure = null;
      pushing = false;
      active = true;
    }

    static void end() {
      active = false;
    }

    static int done() {
      return RESTARTS.get();
    }

    static void restarted() {
      RESTARTS.incrementAndGet();
    }

    static void fail(Exception e) {
      failure = e;
    }

    static void awaitPushing() throws InterruptedException {
      Await.until(() -> pushing || !active, "a map task pushing");
    }

    /** Map {@code m} of MAPS goes on after restart {@code m * 3 / MAPS} (0, 1 or 2) is done. */
    static void midMap(int map) {
      if (active) {
        pushing = true;
        awaitRestarts(map * 3 / MAPS);
      }
    }

    /**
     * Reduce {@code r} goes on after restart {@code 3 + (r + 1) * 3 / REDUCES} is done: the last
     * waits for every restart, so that the application still holds data on the last server to
     * restart, and reads what it recorded once it is back.
     */
    static void midReduce(int reduce) {
      if (active) {
        awaitRestarts(3 + (reduce + 1) * 3 / REDUCES);
      }
    }

    private static void awaitRestarts(int n) {
      long deadline = System.nanoTime() + WAIT_NANOS;
      while (active && RESTARTS.get() < n) {
        if (failure != null) {
          throw new IllegalStateException("the rolling restart failed", failure);
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("timed out waiting for " + n + " restarts");
        }
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
  }

  @Test
  void withOneCopyAKillDuringTheReduceStageRerunsTheMapStageOnce() {
    JobObserver observer = runKilling(1, midReduce());
    assertEquals(
        2,
        observer.submissions().get(MAP_STAGE),
        "map stage submissions; task failures: " + observer.failures());
    assertTrue(
        observer.failures().stream().anyMatch(f -> f.contains("FetchFailed")),
        "the reduce stage saw the loss: " + observer.failures());
  }
}
