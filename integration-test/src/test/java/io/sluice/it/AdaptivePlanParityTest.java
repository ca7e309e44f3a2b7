package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MiniCluster;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.spark.MapOutputTrackerMaster;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.CompressedMapStatus;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.collection.JavaConverters;

/**
 * Adaptive execution plans from the partition sizes in each map's {@code MapStatus}; through Sluice
 * they must be those Spark's sort shuffle reports for the same records, so that a query plans the
 * same way (issue: sizes as Spark reports them). Each case runs with the built-in shuffle and
 * through Sluice in this JVM, and compares every map's reported size of every reduce partition,
 * every map task's bytes written, the rows, and the adaptive decisions of the final plan: how many
 * partitions each shuffle read has, which are skew splits, and which join was chosen.
 *
 * <p>The cases are Spark's size-sensitive ones: coalescing to an advisory size, skew splits of a
 * join and of a rebalance, and a sort-merge join that becomes a shuffled hash join when every
 * partition is below a threshold. Each map's output of a partition fits one Sluice block (256 KiB),
 * where the sizes are exact (larger ones differ by a few bytes per block; see docs/client.md).
 */
class AdaptivePlanParityTest {
  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new MiniCluster(2, Map.of());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  private static final Map<String, String> AQE =
      Map.of(
          "spark.sql.adaptive.enabled", "true",
          "spark.sql.shuffle.partitions", "40",
          "spark.sql.autoBroadcastJoinThreshold", "-1");

  /**
   * What a run showed Spark's planner: sizes by "shuffle/map index/reduce", bytes written by
   * "stage/task index", the sorted rows and the adaptive decisions.
   */
  private record Run(
      Map<String, Long> sizes,
      Map<String, Long> written,
      List<String> rows,
      List<String> decisions) {}

  private static Run run(
      boolean sluice, Map<String, String> conf, Function<SparkSession, Dataset<Row>> query) {
    var base = SparkSessions.base("local[2]", "plan-parity");
    if (sluice) {
      SparkSessions.withSluice(base, cluster);
    }
    Map<String, String> all = new HashMap<>(AQE);
    all.putAll(conf);
    SparkSession spark = SparkSessions.start(base, all);
    try {
      Map<String, Long> written = new TreeMap<>();
      spark
          .sparkContext()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                  if (end.taskMetrics() == null) {
                    return;
                  }
                  long bytes = end.taskMetrics().shuffleWriteMetrics().bytesWritten();
                  if (bytes > 0) {
                    synchronized (written) {
                      written.put(end.stageId() + "/" + end.taskInfo().index(), bytes);
                    }
                  }
                }
              });
      Dataset<Row> df = query.apply(spark);
      List<String> rows = new ArrayList<>(df.collectAsList().stream().map(Row::toString).toList());
      rows.sort(null);
      SparkPlan plan =
          df.queryExecution().executedPlan() instanceof AdaptiveSparkPlanExec aqe
              ? aqe.executedPlan()
              : df.queryExecution().executedPlan();
      List<String> decisions = new ArrayList<>();
      describe(plan, decisions);
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty();
      } catch (TimeoutException e) {
        throw new AssertionError("Spark's listener bus did not drain", e);
      }
      synchronized (written) {
        return new Run(mapSizes(), Map.copyOf(written), rows, decisions);
      }
    } finally {
      spark.stop();
    }
  }

  /**
   * Every registered map output's size of each partition of its shuffle. The cases have fewer than
   * 2,000 partitions, so every status is a CompressedMapStatus, whose sizes end at its last
   * partition (the tracker keeps no partition count once a job is done).
   */
  private static Map<String, Long> mapSizes() {
    MapOutputTrackerMaster tracker = (MapOutputTrackerMaster) SparkEnv.get().mapOutputTracker();
    Map<String, Long> sizes = new TreeMap<>();
    for (Object id : JavaConverters.asJavaCollection(tracker.shuffleStatuses().keys())) {
      MapStatus[] maps = tracker.shuffleStatuses().apply(id).mapStatuses();
      for (int map = 0; map < maps.length; map++) {
        assertTrue(maps[map] instanceof CompressedMapStatus, String.valueOf(maps[map]));
        for (int reduce = 0; ; reduce++) {
          long size;
          try {
            size = maps[map].getSizeForBlock(reduce);
          } catch (ArrayIndexOutOfBoundsException pastTheLastPartition) {
            break;
          }
          sizes.put(id + "/" + map + "/" + reduce, size);
        }
      }
    }
    return sizes;
  }

  /** The plan's adaptive decisions, in the plan's order. */
  private static void describe(SparkPlan plan, List<String> out) {
    if (plan instanceof AQEShuffleReadExec read) {
      out.add(
          "read of "
              + read.partitionSpecs().size()
              + " partitions"
              + (read.hasSkewedPartition() ? ", skew split" : "")
              + (read.hasCoalescedPartition() ? ", coalesced" : ""));
    } else if (plan instanceof SortMergeJoinExec join) {
      out.add("sort-merge join" + (join.isSkewJoin() ? " (skew)" : ""));
    } else if (plan instanceof ShuffledHashJoinExec join) {
      out.add("shuffled hash join" + (join.isSkewJoin() ? " (skew)" : ""));
    } else if (plan instanceof BroadcastHashJoinExec) {
      out.add("broadcast hash join");
    }
    for (SparkPlan child : JavaConverters.seqAsJavaList(plan.children())) {
      describe(child, out);
    }
    if (plan instanceof AdaptiveSparkPlanExec nested) {
      describe(nested.executedPlan(), out);
    }
    if (plan instanceof QueryStageExec stage) {
      // A stage is a leaf of the final plan; what ran in it is its own plan.
      describe(stage.plan(), out);
    }
  }

  /**
   * Runs a case both ways and compares what the planner saw and did; returns Sluice's run. Every
   * map's output of a partition must fit one block: then the bytes are equal to the byte.
   */
  private static Run samePlanning(
      String name, Map<String, String> conf, Function<SparkSession, Dataset<Row>> query) {
    return samePlanning(name, conf, query, 0);
  }

  /**
   * As above; where a map's output of a partition spans several blocks, each task's bytes may
   * differ from Spark's by {@code tolerance} of them (a chunk that Spark compresses whole is two
   * pieces here), and a size in a MapStatus by at most one of its 10% steps.
   */
  private static Run samePlanning(
      String name,
      Map<String, String> conf,
      Function<SparkSession, Dataset<Row>> query,
      double tolerance) {
    Run builtin = run(false, conf, query);
    long pushed = cluster.pushedBytes();
    Run sluice = run(true, conf, query);
    assertTrue(cluster.pushedBytes() > pushed, name + ": nothing went through Sluice");
    assertFalse(builtin.rows().isEmpty(), name + ": no rows");
    assertEquals(builtin.rows(), sluice.rows(), name + ": rows differ");
    assertFalse(builtin.sizes().isEmpty(), name + ": no map output");
    if (tolerance == 0) {
      assertEquals(builtin.sizes(), sluice.sizes(), name + ": map output sizes differ");
    } else {
      // A few bytes apart, a size can still fall on the other side of one of MapStatus's steps.
      assertEquals(
          builtin.sizes().keySet(), sluice.sizes().keySet(), name + ": map outputs differ");
      builtin
          .sizes()
          .forEach(
              (block, size) ->
                  assertTrue(
                      Math.abs(sluice.sizes().get(block) - size) <= 0.11 * size,
                      name
                          + ": "
                          + block
                          + " is "
                          + sluice.sizes().get(block)
                          + " bytes, Spark's "
                          + size));
    }
    if (tolerance == 0) {
      assertEquals(builtin.written(), sluice.written(), name + ": bytes written differ");
    } else {
      assertEquals(builtin.written().keySet(), sluice.written().keySet(), name + ": tasks differ");
      builtin
          .written()
          .forEach(
              (task, bytes) -> {
                long difference = Math.abs(sluice.written().get(task) - bytes);
                assertTrue(
                    difference > 0 && difference <= tolerance * bytes,
                    name
                        + ": task "
                        + task
                        + " wrote "
                        + sluice.written().get(task)
                        + " bytes, Spark's shuffle "
                        + bytes);
              });
    }
    assertEquals(builtin.decisions(), sluice.decisions(), name + ": the plans differ");
    return sluice;
  }

  @Test
  void coalescingToTheAdvisorySize() {
    Run run =
        samePlanning(
            "coalesce",
            Map.of(
                "spark.sql.adaptive.coalescePartitions.enabled", "true",
                "spark.sql.adaptive.advisoryPartitionSizeInBytes", "6k"),
            spark ->
                spark
                    .range(0, 200_000, 1, 4)
                    .selectExpr("id % 4001 as k", "concat('value-', cast(id * 7 as string)) as s")
                    .groupBy("k")
                    .agg(org.apache.spark.sql.functions.max("s")));
    assertTrue(run.decisions().toString().contains("coalesced"), run.decisions().toString());
  }

  @Test
  void skewSplitsOfAJoin() {
    Run run =
        samePlanning(
            "skew join",
            Map.of(
                "spark.sql.adaptive.coalescePartitions.enabled", "false",
                "spark.sql.adaptive.skewJoin.enabled", "true",
                "spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2",
                "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "16k",
                "spark.sql.adaptive.advisoryPartitionSizeInBytes", "16k"),
            spark ->
                spark
                    .range(0, 90_000, 1, 4)
                    .selectExpr("case when id % 3 = 0 then 7 else id % 3000 end as k", "id as v")
                    .join(spark.range(0, 9_000, 1, 2).selectExpr("id % 3000 as k", "id as w"), "k")
                    .agg(
                        org.apache.spark.sql.functions.sum("v"),
                        org.apache.spark.sql.functions.sum("w")));
    assertTrue(run.decisions().toString().contains("skew split"), run.decisions().toString());
  }

  @Test
  void skewSplitsAndSmallPartitionsOfARebalance() {
    Run run =
        samePlanning(
            "rebalance",
            Map.of(
                "spark.sql.adaptive.coalescePartitions.enabled", "true",
                "spark.sql.adaptive.optimizeSkewsInRebalancePartitions.enabled", "true",
                "spark.sql.adaptive.advisoryPartitionSizeInBytes", "24k",
                "spark.sql.adaptive.rebalancePartitionsSmallPartitionFactor", "0.5"),
            spark -> {
              spark
                  .range(0, 80_000, 1, 4)
                  .selectExpr(
                      "case when id % 4 = 0 then 1 else id % 500 end as k",
                      "concat('r', cast(id as string)) as s")
                  .createOrReplaceTempView("skewed");
              return spark.sql("SELECT /*+ REBALANCE(k) */ k, s FROM skewed");
            });
    assertTrue(run.decisions().toString().contains("skew split"), run.decisions().toString());
  }

  /**
   * Adaptive execution turns a sort-merge join into a shuffled hash join when every partition is
   * below a threshold: thresholds on both sides of the partitions' sizes must decide alike.
   */
  @Test
  void shuffledHashJoinWhenEveryPartitionIsSmallEnough() {
    List<String> joins = new ArrayList<>();
    for (String threshold : List.of("1k", "2k", "3k", "4k", "6k")) {
      Run run =
          samePlanning(
              "hash join below " + threshold,
              Map.of(
                  "spark.sql.adaptive.coalescePartitions.enabled", "false",
                  "spark.sql.adaptive.advisoryPartitionSizeInBytes", threshold,
                  "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold", threshold),
              spark ->
                  spark
                      .range(0, 60_000, 1, 3)
                      .selectExpr("id % 7000 as k", "concat('left-', cast(id as string)) as a")
                      .join(
                          spark
                              .range(0, 30_000, 1, 2)
                              .selectExpr(
                                  "id % 7000 as k", "concat('right-', cast(id as string)) as b"),
                          "k")
                      .groupBy("k")
                      .count());
      joins.add(
          threshold
              + ": "
              + run.decisions().stream()
                  .filter(d -> d.contains("join"))
                  .findFirst()
                  .orElse("no join"));
    }
    assertTrue(
        joins.stream().anyMatch(j -> j.contains("shuffled hash join"))
            && joins.stream().anyMatch(j -> j.contains("sort-merge join")),
        "the thresholds should straddle the partitions' sizes: " + joins);
  }

  /**
   * A map's output of the hot partition spans several blocks: the bytes differ by a few per block,
   * the sizes in each MapStatus (which Spark keeps to about 10%) by at most one step, and the plan
   * not at all.
   */
  @Test
  void partitionsLargerThanABlockPlanTheSame() {
    samePlanning(
        "multi-block",
        Map.of(
            "spark.sql.adaptive.coalescePartitions.enabled", "true",
            "spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k"),
        spark -> {
          spark
              .range(0, 240_000, 1, 2)
              .selectExpr(
                  "case when id % 2 = 0 then 3 else id % 900 end as k",
                  "concat('wide-', cast(id as string), '-', cast(id * 31 as string)) as s")
              .createOrReplaceTempView("wide");
          // The aggregation runs after the repartition: no map-side aggregation shrinks the hot
          // partition, of which each map writes megabytes.
          return spark.sql(
              "SELECT k, count(*), max(s) FROM "
                  + "(SELECT /*+ REPARTITION(k) */ k, s FROM wide) GROUP BY k");
        },
        0.001);
  }

  @Test
  void encryptedShufflesReportSparksEncryptedSizes() {
    samePlanning(
        "encrypted",
        Map.of(
            "spark.io.encryption.enabled", "true",
            "spark.sql.adaptive.coalescePartitions.enabled", "true",
            "spark.sql.adaptive.advisoryPartitionSizeInBytes", "6k"),
        spark ->
            spark
                .range(0, 100_000, 1, 4)
                .selectExpr("id % 3001 as k", "cast(id as string) as s")
                .groupBy("k")
                .agg(org.apache.spark.sql.functions.max("s")));
  }

  @Test
  void uncompressedShufflesReportTheSerializedBytes() {
    samePlanning(
        "uncompressed",
        Map.of(
            "spark.shuffle.compress", "false",
            "spark.sql.adaptive.coalescePartitions.enabled", "true",
            "spark.sql.adaptive.advisoryPartitionSizeInBytes", "20k"),
        spark ->
            spark
                .range(0, 100_000, 1, 4)
                .selectExpr("id % 3001 as k", "id as v")
                .groupBy("k")
                .sum("v"));
  }
}
