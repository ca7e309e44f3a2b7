package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Spark SQL through Sluice with adaptive execution on: the same rows as the built-in shuffle, and
 * AQE's partition coalescing and skew-join splitting (which read map ranges) really happen.
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

  private static final Map<String, String> AQE = Map.of(
      "spark.sql.adaptive.enabled", "true",
      "spark.sql.adaptive.coalescePartitions.enabled", "true",
      "spark.sql.shuffle.partitions", "40",
      "spark.sql.autoBroadcastJoinThreshold", "-1");

  /** The rows and the final plan of a query, with the given engine settings. */
  private record Outcome(List<String> rows, String plan) {}

  private static Outcome run(boolean sluice, Map<String, String> conf,
      Function<SparkSession, Dataset<Row>> query) {
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
      String plan = df.queryExecution().executedPlan() instanceof AdaptiveSparkPlanExec aqe
          ? aqe.executedPlan().toString()
          : df.queryExecution().executedPlan().toString();
      return new Outcome(rows, plan);
    } finally {
      spark.stop();
    }
  }

  private static Outcome compare(String name, Map<String, String> conf, boolean ordered,
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
    return spark.range(0, n, 1, 6).selectExpr("id % 997 as k", "id as v",
        "concat('row-', cast(id as string)) as s");
  }

  @Test
  void groupByCoalescesPartitions() {
    Outcome o = compare("group-by", Map.of(), false, spark -> facts(spark, 300_000)
        .groupBy("k").agg(org.apache.spark.sql.functions.count("*"),
            org.apache.spark.sql.functions.sum("v")));
    assertTrue(o.plan().contains("AQEShuffleRead") && o.plan().contains("coalesced"),
        "partition coalescing should have happened:\n" + o.plan());
  }

  @Test
  void join() {
    compare("join", Map.of(), false, spark -> facts(spark, 100_000).as("a")
        .join(facts(spark, 50_000).selectExpr("k", "v * 2 as w").as("b"), "k")
        .groupBy("k").agg(org.apache.spark.sql.functions.sum("w"),
            org.apache.spark.sql.functions.count("*")));
  }

  @Test
  void windowFunction() {
    compare("window", Map.of(), false, spark -> {
      facts(spark, 100_000).createOrReplaceTempView("facts");
      return spark.sql("select k, v, rn from (select k, v, row_number() over "
          + "(partition by k order by v desc) as rn from facts) where rn <= 3");
    });
  }

  @Test
  void orderBy() {
    compare("order-by", Map.of(), true, spark -> facts(spark, 100_000)
        .selectExpr("(v * 7919) % 100003 as x", "s").orderBy("x", "s"));
  }

  @Test
  void skewJoinIsSplitByMapRanges() {
    Map<String, String> skew = Map.of(
        "spark.sql.adaptive.skewJoin.enabled", "true",
        // The aggregation after the join needs the join's partitioning: splitting the skewed
        // partition then costs an extra shuffle, which AQE accepts only when forced.
        "spark.sql.adaptive.forceOptimizeSkewedJoin", "true",
        "spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2",
        "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "64k",
        "spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k",
        "spark.sql.adaptive.coalescePartitions.enabled", "false",
        "spark.sql.shuffle.partitions", "10");
    Outcome o = compare("skew-join", skew, false, spark -> {
      // Key 0 holds about half of the left side: a skewed partition.
      Dataset<Row> left = spark.range(0, 200_000, 1, 8)
          .selectExpr("case when id % 2 = 0 then 0 else id % 5000 end as k", "id as v");
      Dataset<Row> right = spark.range(0, 20_000, 1, 4).selectExpr("id % 5000 as k", "id as w");
      return left.join(right, "k").groupBy("k").agg(org.apache.spark.sql.functions.count("*"),
          org.apache.spark.sql.functions.sum("v"), org.apache.spark.sql.functions.sum("w"));
    });
    assertTrue(o.plan().contains("skew=true"), "the skew join should have been split:\n"
        + o.plan());
  }

  /**
   * A skew split reads from the servers only the map ranges each split asks for: splitting moves
   * about the bytes the unsplit join moves, plus the other side's partition once per split, and
   * not the skewed partition once per split (about half of the left side each time).
   */
  @Test
  void aSkewSplitReadMovesOnlyTheBytesOfTheRequestedMaps() throws Exception {
    Function<SparkSession, Dataset<Row>> query = spark -> {
      Dataset<Row> left = spark.range(0, 400_000, 1, 8)
          .selectExpr("case when id % 2 = 0 then 0 else id % 5000 end as k", "id as v");
      Dataset<Row> right = spark.range(0, 20_000, 1, 4).selectExpr("id % 5000 as k", "id as w");
      // A global aggregate needs no partitioning by key after the join, so AQE splits freely.
      return left.join(right, "k").agg(org.apache.spark.sql.functions.count("*"),
          org.apache.spark.sql.functions.sum("v"), org.apache.spark.sql.functions.sum("w"));
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
    assertTrue(split.plan().contains("skew=true"), "the join should have been split:\n"
        + split.plan());
    assertTrue(unsplitRead > 0.9 * unsplitPushed, "the unsplit join reads what was pushed: "
        + unsplitRead + " of " + unsplitPushed + " bytes");
    assertTrue(splitRead < unsplitRead + 0.25 * unsplitPushed, "the split join read "
        + splitRead + " bytes, the unsplit one " + unsplitRead + " (" + unsplitPushed
        + " pushed; " + splits + " skewed sides split):\n" + split.plan());
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
