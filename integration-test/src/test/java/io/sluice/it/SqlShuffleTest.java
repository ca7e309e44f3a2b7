package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.examples.SuiteData;
import io.sluice.testcluster.MiniCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark SQL through Sluice with adaptive execution on, in this JVM, beyond what the suite that runs
 * on every Spark line covers ({@link SparkLinesSuiteTest}: group-by, join, window, skew join): the
 * same rows as the built-in shuffle for a global sort, partition coalescing seen in the plan, and a
 * skew split that reads only the map ranges it asks for.
 */
class SqlShuffleTest {
  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new MiniCluster(3, Map.of());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  private static final Map<String, String> AQE =
      Map.of(
          "spark.sql.adaptive.enabled", "true",
          "spark.sql.adaptive.coalescePartitions.enabled", "true",
          "spark.sql.shuffle.partitions", "40",
          "spark.sql.autoBroadcastJoinThreshold", "-1");

  /** The rows and the final plan of a query, with the given engine settings. */
  private record Outcome(List<String> rows, String plan) {}

  private static Outcome run(
      boolean sluice, Map<String, String> conf, Function<SparkSession, Dataset<Row>> query) {
    var base = SparkSessions.base("local[2]", "sql");
    if (sluice) {
      SparkSessions.withSluice(base, cluster);
    }
    Map<String, String> all = new HashMap<>(AQE);
    all.putAll(conf);
    SparkSession spark = SparkSessions.start(base, all);
    try {
      Dataset<Row> df = query.apply(spark);
      List<String> rows = df.collectAsList().stream().map(Row::toString).toList();
      String plan =
          df.queryExecution().executedPlan() instanceof AdaptiveSparkPlanExec aqe
              ? aqe.executedPlan().toString()
              : df.queryExecution().executedPlan().toString();
      return new Outcome(rows, plan);
    } finally {
      spark.stop();
    }
  }

  private static Outcome compare(
      String name,
      Map<String, String> conf,
      boolean ordered,
      Function<SparkSession, Dataset<Row>> query) {
    Outcome builtin = run(false, conf, query);
    long before = cluster.pushedBytes();
    Outcome sluice = run(true, conf, query);
    List<String> expected = ordered ? builtin.rows() : builtin.rows().stream().sorted().toList();
    List<String> actual = ordered ? sluice.rows() : sluice.rows().stream().sorted().toList();
    assertEquals(expected, actual, name + ": rows differ");
    assertFalse(actual.isEmpty(), name + ": no rows");
    assertTrue(cluster.pushedBytes() > before, name + ": nothing went through Sluice");
    return sluice;
  }

  private static Dataset<Row> facts(SparkSession spark, long n) {
    return SuiteData.facts(spark, n);
  }

  @Test
  void groupByCoalescesPartitions() {
    Outcome o =
        compare(
            "group-by",
            Map.of(),
            false,
            spark ->
                facts(spark, 300_000)
                    .groupBy("k")
                    .agg(
                        org.apache.spark.sql.functions.count("*"),
                        org.apache.spark.sql.functions.sum("v")));
    assertTrue(
        o.plan().contains("AQEShuffleRead") && o.plan().contains("coalesced"),
        "partition coalescing should have happened:\n" + o.plan());
  }

  @Test
  void orderBy() {
    compare(
        "order-by",
        Map.of(),
        true,
        spark ->
            facts(spark, 100_000).selectExpr("(v * 7919) % 100003 as x", "s").orderBy("x", "s"));
  }

  /**
   * A skew split reads from the servers only the map ranges each split asks for: splitting moves
   * about the bytes the unsplit join moves, plus the other side's partition once per split, and not
   * the skewed partition once per split (about half of the left side each time).
   */
  @Test
  void aSkewSplitReadMovesOnlyTheBytesOfTheRequestedMaps() throws Exception {
    Function<SparkSession, Dataset<Row>> query =
        spark -> {
          Dataset<Row> left = SuiteData.skewedLeft(spark, 400_000);
          // A global aggregate needs no partitioning by key after the join, so AQE splits freely.
          return left.join(SuiteData.skewedRight(spark), "k")
              .agg(
                  org.apache.spark.sql.functions.count("*"),
                  org.apache.spark.sql.functions.sum("v"),
                  org.apache.spark.sql.functions.sum("w"));
        };
    double readBefore = cluster.readBytes();
    long pushedBefore = cluster.pushedBytes();
    Outcome unsplit = run(true, skewSettings(false), query);
    double unsplitRead = cluster.readBytes() - readBefore;
    long unsplitPushed = cluster.pushedBytes() - pushedBefore;
    readBefore = cluster.readBytes();
    Outcome split = run(true, skewSettings(true), query);
    double splitRead = cluster.readBytes() - readBefore;

    assertEquals(unsplit.rows(), split.rows());
    assertFalse(unsplit.plan().contains("skew=true"), unsplit.plan());
    long splits = split.plan().lines().filter(l -> l.contains("skew=true")).count();
    assertTrue(
        split.plan().contains("skew=true"), "the join should have been split:\n" + split.plan());
    assertTrue(
        unsplitRead > 0.9 * unsplitPushed,
        "the unsplit join reads what was pushed: "
            + unsplitRead
            + " of "
            + unsplitPushed
            + " bytes");
    assertTrue(
        splitRead < unsplitRead + 0.25 * unsplitPushed,
        "the split join read "
            + splitRead
            + " bytes, the unsplit one "
            + unsplitRead
            + " ("
            + unsplitPushed
            + " pushed; "
            + splits
            + " skewed sides split):\n"
            + split.plan());
  }

  private static Map<String, String> skewSettings(boolean split) {
    return Map.of(
        "spark.sql.adaptive.skewJoin.enabled", String.valueOf(split),
        "spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2",
        "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "64k",
        "spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k",
        "spark.sql.adaptive.coalescePartitions.enabled", "false",
        "spark.sql.shuffle.partitions", "10");
  }
}
