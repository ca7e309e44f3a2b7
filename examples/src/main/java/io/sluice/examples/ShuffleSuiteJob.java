package io.sluice.examples;

import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import scala.Tuple2;

/**
 * Shuffle shapes whose answers must not depend on the shuffle manager: RDD operators, map and
 * reduce tasks whose first attempt fails part-way, and SQL queries under adaptive execution. Prints
 * one line per case (row count and a CRC of the rows, in a canonical order) and, for SQL, what
 * adaptive execution did (coalesced reads, skew splits, each read's partition count, the join
 * chosen). Built for every Spark line from one source; the integration tests run it with the
 * built-in shuffle and through Sluice on each line and compare the lines it prints.
 *
 * <p>Submit it with a master that allows task retries, e.g. {@code local[2,4]}.
 */
public final class ShuffleSuiteJob {
  private static final Map<String, String> AQE =
      Map.of(
          "spark.sql.adaptive.enabled", "true",
          "spark.sql.adaptive.coalescePartitions.enabled", "true",
          "spark.sql.adaptive.skewJoin.enabled", "false",
          "spark.sql.shuffle.partitions", "40",
          "spark.sql.autoBroadcastJoinThreshold", "-1");

  private final SparkSession spark;
  private final JavaSparkContext sc;

  private ShuffleSuiteJob(SparkSession spark) {
    this.spark = spark;
    this.sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  public static void main(String[] args) {
    SparkSession spark = SparkSession.builder().appName("sluice-shuffle-suite").getOrCreate();
    JobCounts counts = new JobCounts();
    spark.sparkContext().addSparkListener(counts);
    String manager;
    try {
      new ShuffleSuiteJob(spark).run();
      manager =
          "Shuffle manager: "
              + spark.conf().get("spark.shuffle.manager", "sort")
              + ", Spark "
              + spark.version();
    } finally {
      spark.stop();
    }
    // What Spark saw (complete once stopped): the two failures the job makes on purpose, and no
    // stage re-run.
    System.out.println(counts.summary());
    System.out.println(manager);
  }

  private void run() {
    rdd("reduceByKey", () -> pairs(200_000, 1_000).reduceByKey(Long::sum, 7).collect());
    rdd(
        "groupByKey",
        () ->
            pairs(100_000, 2_000)
                .groupByKey(5)
                .mapValues(
                    values -> {
                      long total = 0;
                      int n = 0;
                      for (long v : values) {
                        total += v;
                        n++;
                      }
                      return n + "/" + total;
                    })
                .collect());
    // Unique keys, so the sorted order is fully determined: the rows are compared as they come.
    ordered(
        "sortByKey",
        () ->
            pairs(100_000, 1_000_000)
                .mapToPair(t -> new Tuple2<>(t._2() * 1_000_000L + t._1(), t._1()))
                .sortByKey(false, 6)
                .collect());
    rdd("join", () -> pairs(50_000, 3_000).join(pairs(20_000, 3_000), 6).collect());
    rdd(
        "cogroup",
        () ->
            pairs(30_000, 500)
                .cogroup(pairs(10_000, 700), 3)
                .mapValues(groups -> size(groups._1()) + "/" + size(groups._2()))
                .collect());
    rdd("repartition", () -> pairs(50_000, 100_000).values().repartition(9).collect());
    rdd("distinct", () -> pairs(50_000, 700).keys().distinct(4).collect());
    rdd("empty-partitions", () -> pairs(8, 1_000).reduceByKey(Long::sum, 50).collect());
    rdd("2000-partitions", () -> pairs(100_000, 10_000).reduceByKey(Long::sum, 2_000).collect());
    rdd(
        "first-attempts-fail",
        () ->
            pairs(200_000, 1_000)
                .mapPartitionsToPair(records -> failFirstAttemptHalfWay(records, 0))
                .reduceByKey(Long::sum, 7)
                .mapPartitionsToPair(records -> failFirstAttemptHalfWay(records, 3))
                .collect());

    sql("group-by", Map.of(), () -> facts(300_000).groupBy("k").agg(count("*"), sum("v")));
    sql(
        "join",
        Map.of(),
        () ->
            facts(100_000)
                .as("a")
                .join(facts(50_000).selectExpr("k", "v * 2 as w").as("b"), "k")
                .groupBy("k")
                .agg(sum("w"), count("*")));
    sql(
        "window",
        Map.of(),
        () -> {
          facts(100_000).createOrReplaceTempView("facts");
          return spark.sql(
              "select k, v, rn from (select k, v, row_number() over "
                  + "(partition by k order by v desc) as rn from facts) where rn <= 3");
        });
    sql(
        "skew-join",
        Map.of(
            "spark.sql.adaptive.skewJoin.enabled", "true",
            // The aggregation after the join needs the join's partitioning: splitting the skewed
            // partition costs an extra shuffle, which adaptive execution accepts only when forced.
            "spark.sql.adaptive.forceOptimizeSkewedJoin", "true",
            "spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2",
            "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "64k",
            "spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k",
            "spark.sql.adaptive.coalescePartitions.enabled", "false",
            "spark.sql.shuffle.partitions", "10"),
        () -> {
          Dataset<Row> left = SuiteData.skewedLeft(spark, 200_000);
          return left.join(SuiteData.skewedRight(spark), "k")
              .groupBy("k")
              .agg(count("*"), sum("v"), sum("w"));
        });
    // Decisions taken from the partition sizes in MapStatus (docs/client.md, "The sizes Spark plans
    // from"): skew splits and small-partition merging of a rebalance, and a sort-merge join that
    // becomes a shuffled hash join only when every partition is below the threshold, with
    // thresholds on both sides of this join's partition sizes.
    sql(
        "rebalance",
        Map.of(
            "spark.sql.adaptive.optimizeSkewsInRebalancePartitions.enabled", "true",
            "spark.sql.adaptive.advisoryPartitionSizeInBytes", "24k",
            "spark.sql.adaptive.rebalancePartitionsSmallPartitionFactor", "0.5"),
        () -> {
          spark
              .range(0, 80_000, 1, 4)
              .selectExpr(
                  "case when id % 4 = 0 then 1 else id % 500 end as k",
                  "concat('r', cast(id as string)) as s")
              .createOrReplaceTempView("skewed");
          return spark.sql("SELECT /*+ REBALANCE(k) */ k, s FROM skewed");
        });
    for (String threshold : List.of("2k", "4k", "6k")) {
      sql(
          "hash-join-" + threshold,
          Map.of(
              "spark.sql.adaptive.coalescePartitions.enabled", "false",
              "spark.sql.adaptive.advisoryPartitionSizeInBytes", threshold,
              "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold", threshold),
          () ->
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
    }
  }

  /** An RDD case, its rows compared in a canonical order. */
  private void rdd(String name, Supplier<List<?>> job) {
    List<String> rows = new ArrayList<>();
    for (Object row : job.get()) {
      rows.add(String.valueOf(row));
    }
    rows.sort(null);
    print(name, rows);
  }

  /** An RDD case whose rows must come back in order. */
  private void ordered(String name, Supplier<List<?>> job) {
    List<String> rows = new ArrayList<>();
    for (Object row : job.get()) {
      rows.add(String.valueOf(row));
    }
    print(name, rows);
  }

  /** A SQL case: its rows in any order, and what adaptive execution made of its plan. */
  private void sql(String name, Map<String, String> conf, Supplier<Dataset<Row>> query) {
    AQE.forEach(spark.conf()::set);
    conf.forEach(spark.conf()::set);
    Dataset<Row> df = query.get();
    List<String> rows = new ArrayList<>();
    for (Row row : df.collectAsList()) {
      rows.add(row.toString());
    }
    rows.sort(null);
    print(name, rows);
    SparkPlan executed = df.queryExecution().executedPlan();
    String plan =
        executed instanceof AdaptiveSparkPlanExec adaptive
            ? adaptive.executedPlan().toString()
            : executed.toString();
    System.out.printf(
        "Plan %s: %d coalesced shuffle reads, %d skew splits%n",
        name, occurrences(plan, "coalesced"), occurrences(plan, "skew=true"));
    List<String> decisions = new ArrayList<>();
    decisions(
        executed instanceof AdaptiveSparkPlanExec adaptive ? adaptive.executedPlan() : executed,
        decisions);
    System.out.printf("Decisions %s: %s%n", name, decisions);
  }

  /**
   * What adaptive execution decided from the partition sizes, in plan order: how many partitions
   * each shuffle read has (and whether it split skewed ones), and which join it chose.
   */
  private static void decisions(SparkPlan plan, List<String> out) {
    if (plan instanceof AQEShuffleReadExec read) {
      out.add(
          "read of "
              + read.partitionSpecs().size()
              + " partitions"
              + (read.hasSkewedPartition() ? ", skew split" : ""));
    } else if (plan instanceof SortMergeJoinExec) {
      out.add("sort-merge join");
    } else if (plan instanceof ShuffledHashJoinExec) {
      out.add("shuffled hash join");
    }
    scala.collection.Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      decisions(children.next(), out);
    }
    if (plan instanceof QueryStageExec stage) {
      // A stage is a leaf of the final plan; what ran in it is its own plan.
      decisions(stage.plan(), out);
    }
  }

  private static void print(String name, List<String> rows) {
    CRC32 crc = new CRC32();
    for (String row : rows) {
      crc.update(row.getBytes(StandardCharsets.UTF_8));
      crc.update('\n');
    }
    System.out.printf("Case %s: %d rows, crc %08x%n", name, rows.size(), crc.getValue());
  }

  /** Fails the first attempt of task {@code partition} after half of its records. */
  private static <K, V> Iterator<Tuple2<K, V>> failFirstAttemptHalfWay(
      Iterator<Tuple2<K, V>> records, int partition) {
    TaskContext task = TaskContext.get();
    if (task.partitionId() != partition || task.attemptNumber() > 0) {
      return records;
    }
    List<Tuple2<K, V>> all = new ArrayList<>();
    records.forEachRemaining(all::add);
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < all.size();
      }

      @Override
      public Tuple2<K, V> next() {
        if (next == all.size() / 2) {
          throw new IllegalStateException(
              "first attempt of task " + partition + " fails half-way, on purpose");
        }
        return all.get(next++);
      }
    };
  }

  private JavaPairRDD<Integer, Long> pairs(int n, int keys) {
    return SuiteData.pairs(sc, n, keys);
  }

  private Dataset<Row> facts(long n) {
    return SuiteData.facts(spark, n);
  }

  private static long size(Iterable<?> values) {
    long n = 0;
    for (Object ignored : values) {
      n++;
    }
    return n;
  }

  private static int occurrences(String text, String word) {
    int n = 0;
    for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
      n++;
    }
    return n;
  }
}
