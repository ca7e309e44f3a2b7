package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Faults of the network, not of processes: three shuffle servers and the coordinator on hosts of
 * their own ({@link NetBed}: network namespaces joined by a bridge), a Spark driver with its
 * executors ({@code local[2,4]}) on this JVM's side of the bridge. A server whose link is cut
 * (every packet dropped, so no reset tells anyone) is given up within
 * {@code transport.liveness.timeout}, as a frozen process is; a server whose link is capped to a
 * fraction of the others' only slows the job. Spark's own view (stage submissions, task failures)
 * is asserted beside the answer, which is compared with the built-in shuffle's. Skipped, saying
 * why, where the machine does not allow network namespaces.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class NetworkFaultTest {
  private static final int VICTIM = 1;

  private static NetBed bed;
  private static ProcessCluster cluster;
  private static List<Tuple2<Integer, long[]>> expected;
  private final List<String> cut = new ArrayList<>();
  private final List<String> capped = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    NetBed.assumeAvailable();
    bed = NetBed.up("sfault", 91, List.of("coord", "s0", "s1", "s2"));
    cluster = new ProcessCluster(3, Map.of(), bed);
    expected = ServerLossTest.job(SparkSessions.base("local[2]", "reference"), new JobObserver());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      if (bed != null) {
        bed.close();
      }
    }
  }

  @AfterEach
  void healLinks() throws Exception {
    for (String host : cut) {
      bed.heal(host);
    }
    for (String host : capped) {
      bed.uncap(host);
    }
    if (!cut.isEmpty()) {
      cluster.awaitLive(3);
    }
  }

  private static SparkConf conf(int replicas) {
    return SparkSessions.withSluice(
            SparkSessions.base("local[2,4]", "network-fault-" + replicas),
            cluster.coordinatorAddress())
        .set("spark.sluice.replicas", String.valueOf(replicas))
        .set("spark.sluice.block.size", "32k")
        .set("spark.sluice.push.batch.size", "128k");
  }

  /** Runs the job, applying {@code fault} to the victim's host once {@code when} happens. */
  private JobObserver run(int replicas, Predicate<JobObserver.TaskEvent> when, Fault fault) {
    AtomicInteger applied = new AtomicInteger();
    JobObserver observer = new JobObserver().onceWhen(when, () -> {
      try {
        fault.apply("s" + VICTIM);
        applied.incrementAndGet();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    List<Tuple2<Integer, long[]>> answer = ServerLossTest.job(conf(replicas), observer);
    assertEquals(1, applied.get(), "the fault was applied while the job ran");
    ServerLossTest.assertSameAnswer(expected, answer);
    return observer;
  }

  @FunctionalInterface
  private interface Fault {
    void apply(String host) throws Exception;
  }

  private Fault cutLink() {
    return host -> {
      cut.add(host);
      bed.cut(host);
    };
  }

  @Test
  void withTwoCopiesAServerCutOffDuringTheMapStageRerunsNoStage() throws Exception {
    JobObserver observer = run(2, ServerLossTest.midMap(), cutLink());
    ServerLossTest.assertNoStageRan(observer, 1);
    // Healed, the server is used again, and no stale copy of the first job changes the answer.
    healLinks();
    cut.clear();
    double before = cluster.metric(VICTIM, "sluice_server_pushed_bytes_total");
    ServerLossTest.assertSameAnswer(expected, ServerLossTest.job(conf(2), new JobObserver()));
    assertTrue(cluster.metric(VICTIM, "sluice_server_pushed_bytes_total") > before,
        "the healed server takes data again");
  }

  @Test
  void withTwoCopiesAServerCutOffDuringTheReduceStageRerunsNoStage() {
    JobObserver observer = run(2, ServerLossTest.midReduce(), cutLink());
    ServerLossTest.assertNoStageRan(observer, 1);
  }

  /**
   * Cut off mid-map, healed mid-reduce: the healed server missed blocks and commits while it was
   * given up, and readers that reach it again must neither take its partial copy for the whole nor
   * keep a block twice.
   */
  @Test
  void withTwoCopiesAServerHealedMidReduceServesNoStaleOrDuplicateData() {
    String victim = "s" + VICTIM;
    AtomicInteger healed = new AtomicInteger();
    JobObserver observer = new JobObserver()
        .onceWhen(ServerLossTest.midMap(), () -> {
          try {
            cut.add(victim);
            bed.cut(victim);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        })
        .onceWhen(ServerLossTest.midReduce(), () -> {
          try {
            bed.heal(victim);
            healed.incrementAndGet();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    ServerLossTest.assertSameAnswer(expected, ServerLossTest.job(conf(2), observer));
    assertEquals(1, healed.get(), "the link was healed while reduce tasks ran");
    ServerLossTest.assertNoStageRan(observer, 1);
  }

  @Test
  void withOneCopyAServerCutOffDuringTheMapStageRerunsTheMapStageOnce() {
    JobObserver observer = run(1, ServerLossTest.midMap(), cutLink());
    assertEquals(2, observer.submissions().get(ServerLossTest.MAP_STAGE),
        "map stage submissions; task failures: " + observer.failures());
  }

  /**
   * The coordinator cut off from the start of a job's map stage until after it ended: the servers
   * and the running job go on with what they know (its shuffle was placed before), and a job that
   * needs a placement meanwhile fails, naming the coordinator, rather than hang. Healed, the
   * coordinator hears the servers again and the next job runs.
   */
  @Test
  void aCoordinatorCutOffCostsTheRunningJobNothingAndNewShufflesFailClearly() throws Exception {
    JobObserver observer = run(2, e -> e.stageId() == ServerLossTest.MAP_STAGE && !e.end(),
        host -> {
          cut.add("coord");
          bed.cut("coord");
        });
    ServerLossTest.assertNoStageRan(observer, 1);
    assertEquals(List.of(), observer.failures(), "task failures");

    Exception refused = assertThrows(Exception.class,
        () -> ServerLossTest.job(conf(2), new JobObserver()));
    StringBuilder messages = new StringBuilder();
    for (Throwable t = refused; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertTrue(messages.toString().contains(cluster.coordinatorAddress()), messages.toString());

    healLinks();
    cut.clear();
    ServerLossTest.assertSameAnswer(expected, ServerLossTest.job(conf(2), new JobObserver()));
  }

  @Test
  void aServerOnALinkATenthAsFastAsTheOthersFailsNothing() throws Exception {
    for (int i = 0; i < 3; i++) {
      if (i != VICTIM) {
        capped.add("s" + i);
        bed.cap("s" + i, "200mbit");
      }
    }
    JobObserver observer = run(2, e -> e.stageId() == ServerLossTest.MAP_STAGE && !e.end(),
        host -> {
          capped.add(host);
          bed.cap(host, "20mbit");
        });
    ServerLossTest.assertNoStageRan(observer, 1);
    assertEquals(List.of(), observer.failures(), "task failures");
  }
}
