package io.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.benchmark.tpc.TpcdsQueryTexts;
import io.sluice.benchmark.tpc.TpcdsTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every TPC-DS query text of the Spark line's own test jar gives the same answer through Sluice as
 * through Spark's built-in shuffle, on data generated at {@code sluice.tpcds.scale} (0.1 by
 * default; {@code -Dsluice.tpcds.scale=1} for scale 1), compared without regard to row order
 * ({@link Answers}); a query that fails (Spark 4's ANSI mode divides by zero in q90 at small
 * scales) must fail the same way both ways. The data and the query texts are the TPC-DS benchmark's
 * ({@link TpcdsTables}, {@link TpcdsQueryTexts}: {@code bin/sluice-bench --tpcds}). Each mode runs
 * every query in a fresh Spark application of its own ({@code local[2]}, Spark's defaults but
 * {@code spark.sql.shuffle.partitions}); each query has the conformance suites' time limit, so a
 * hang fails naming the query. The built-in shuffle's answers are read from a recording ({@link
 * RecordedAnswers}) where one was made with this Spark version, scale and number of shuffle
 * partitions; otherwise, or with {@code -Dsluice.tpcds.record=true}, which records them, the
 * queries run through the built-in shuffle first.
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class TpcdsAnswersTest {
  private static final double SCALE =
      Double.parseDouble(System.getProperty("sluice.tpcds.scale", "0.1"));
  private static final String SHUFFLE_PARTITIONS =
      System.getProperty("sluice.tpcds.shuffle.partitions", "8");
  private static final Path WORK = Path.of(System.getProperty("sluice.conformance.work"));

  /** Whether to run the built-in shuffle and record its answers ({@link RecordedAnswers}). */
  private static final boolean RECORD = Boolean.getBoolean("sluice.tpcds.record");

  @Test
  void everyQueryGivesTheBuiltInShufflesAnswer() throws Exception {
    Map<String, String> queries = TpcdsQueryTexts.all();
    assertTrue(queries.size() >= 99, "TPC-DS has at least 99 queries: " + queries.keySet());

    String sparkVersion = org.apache.spark.package$.MODULE$.SPARK_VERSION();
    Map<String, TpcdsOutcome> builtIn =
        RECORD ? null : RecordedAnswers.load(SCALE, SHUFFLE_PARTITIONS, sparkVersion).orElse(null);
    String source =
        builtIn == null
            ? "the built-in shuffle's, at scale " + SCALE
            : "the built-in shuffle's recorded in "
                + RecordedAnswers.name(SCALE, SHUFFLE_PARTITIONS, sparkVersion)
                + " (record them again with -Dsluice.tpcds.record=true if the data generator or"
                + " TpcdsTables changed)";
    if (builtIn == null) {
      System.out.printf(
          "No answers recorded at scale %s with Spark %s (%s): running the built-in shuffle%n",
          SCALE, sparkVersion, RecordedAnswers.name(SCALE, SHUFFLE_PARTITIONS, sparkVersion));
      SparkSession spark = start(conf("tpcds-built-in"));
      try {
        builtIn = run(spark, ensureData(spark), queries, "built-in");
      } finally {
        stop(spark);
      }
      if (RECORD) {
        Path file =
            Path.of(
                    System.getProperty("sluice.project.root"),
                    "spark-conformance/src/test/resources")
                .resolve(RecordedAnswers.name(SCALE, SHUFFLE_PARTITIONS, sparkVersion));
        RecordedAnswers.write(file, SCALE, SHUFFLE_PARTITIONS, sparkVersion, builtIn);
        System.out.println("Recorded the built-in shuffle's answers in " + file);
      }
    }

    Map<String, TpcdsOutcome> sluice;
    String coordinators = ConformanceCluster.acquire();
    try {
      SparkSession spark = start(SluiceSettings.apply(conf("tpcds-sluice"), coordinators));
      try {
        sluice = run(spark, ensureData(spark), queries, "Sluice");
      } finally {
        stop(spark);
      }
    } finally {
      ConformanceCluster.release();
    }

    List<String> differences = new ArrayList<>();
    for (String query : queries.keySet()) {
      TpcdsOutcome expected = builtIn.get(query);
      String difference =
          expected == null
              ? "no answer of the built-in shuffle's (record again)"
              : expected.difference(sluice.get(query));
      if (difference != null) {
        differences.add(query + ": " + difference);
      }
    }
    assertEquals(
        List.of(), differences, "queries whose answer through Sluice differs from " + source);
  }

  /** The data set, generated without a shuffle in {@code spark} if this is its first use. */
  private static Path ensureData(SparkSession spark) throws java.io.IOException {
    return TpcdsTables.ensure(spark, WORK.resolve("tpcds-data"), SCALE);
  }

  private static SparkConf conf(String name) {
    return new SparkConf(false)
        .setMaster("local[2]")
        .setAppName(name)
        .set("spark.ui.enabled", "false")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.sql.shuffle.partitions", SHUFFLE_PARTITIONS)
        .set("spark.sql.warehouse.dir", WORK.resolve("tpcds-warehouse-" + name).toString());
  }

  private static SparkSession start(SparkConf conf) {
    return SparkSession.builder().config(conf).getOrCreate();
  }

  private static void stop(SparkSession spark) {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  /** Each query's outcome, in query order; prints each query's time. */
  private static Map<String, TpcdsOutcome> run(
      SparkSession spark, Path data, Map<String, String> queries, String mode) {
    TpcdsTables.register(spark, data);
    Map<String, TpcdsOutcome> answers = new LinkedHashMap<>();
    long total = 0;
    for (Map.Entry<String, String> query : queries.entrySet()) {
      long start = System.nanoTime();
      TpcdsOutcome outcome =
          TestWatchdog.guard(
              "TPC-DS through " + mode,
              query.getKey(),
              () -> {
                try {
                  return new TpcdsOutcome(spark.sql(query.getValue()).collectAsList(), null);
                } catch (RuntimeException e) {
                  String message = String.valueOf(e.getMessage());
                  return new TpcdsOutcome(
                      null, e.getClass().getName() + ": " + message.lines().findFirst().orElse(""));
                }
              });
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      total += millis;
      System.out.printf(
          "TPC-DS %s through %s: %s in %d ms%n", query.getKey(), mode, outcome, millis);
      answers.put(query.getKey(), outcome);
    }
    System.out.printf(
        "TPC-DS at scale %s through %s: %d queries in %.1f s%n",
        SCALE, mode, queries.size(), total / 1000.0);
    return answers;
  }
}
