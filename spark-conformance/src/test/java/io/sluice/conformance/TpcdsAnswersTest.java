package io.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every TPC-DS query text of the Spark line's own test jar gives the same answer through Sluice as
 * through Spark's built-in shuffle, on data generated at {@code sluice.tpcds.scale} (0.1 by
 * default; {@code -Dsluice.tpcds.scale=1} for scale 1), compared without regard to row order
 * ({@link Answers}). Each mode runs every query in a fresh Spark application of its own
 * ({@code local[2]}, Spark's defaults but {@code spark.sql.shuffle.partitions}); each query has
 * the conformance suites' time limit, so a hang fails naming the query.
 */
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class TpcdsAnswersTest {
  private static final double SCALE = Double.parseDouble(
      System.getProperty("sluice.tpcds.scale", "0.1"));
  private static final String SHUFFLE_PARTITIONS =
      System.getProperty("sluice.tpcds.shuffle.partitions", "8");
  private static final Path WORK = Path.of(System.getProperty("sluice.conformance.work"));

  @Test
  void everyQueryGivesTheBuiltInShufflesAnswer() throws Exception {
    Map<String, String> queries = TpcdsQueries.all();
    assertTrue(queries.size() >= 99, "TPC-DS has at least 99 queries: " + queries.keySet());

    Map<String, List<Row>> builtIn;
    SparkSession spark = start(conf("tpcds-built-in"));
    Path data;
    try {
      data = TpcdsData.ensure(spark, WORK.resolve("tpcds-data"), SCALE);
      builtIn = run(spark, data, queries, "built-in");
    } finally {
      stop(spark);
    }

    Map<String, List<Row>> sluice;
    String coordinators = ConformanceCluster.acquire();
    try {
      spark = start(SluiceSettings.apply(conf("tpcds-sluice"), coordinators));
      try {
        sluice = run(spark, data, queries, "Sluice");
      } finally {
        stop(spark);
      }
    } finally {
      ConformanceCluster.release();
    }

    List<String> differences = new ArrayList<>();
    for (String query : queries.keySet()) {
      String difference = Answers.difference(builtIn.get(query), sluice.get(query));
      if (difference != null) {
        differences.add(query + ": " + difference);
      }
    }
    assertEquals(List.of(), differences, "queries whose answer through Sluice differs from the "
        + "built-in shuffle's, at scale " + SCALE);
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

  /** Each query's rows, in query order; prints each query's time. */
  private static Map<String, List<Row>> run(SparkSession spark, Path data,
      Map<String, String> queries, String mode) {
    TpcdsData.register(spark, data);
    Map<String, List<Row>> answers = new LinkedHashMap<>();
    long total = 0;
    for (Map.Entry<String, String> query : queries.entrySet()) {
      long start = System.nanoTime();
      List<Row> rows = TestWatchdog.guard("TPC-DS through " + mode, query.getKey(),
          () -> spark.sql(query.getValue()).collectAsList());
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      total += millis;
      System.out.printf("TPC-DS %s through %s: %d rows in %d ms%n", query.getKey(), mode,
          rows.size(), millis);
      answers.put(query.getKey(), rows);
    }
    System.out.printf("TPC-DS at scale %s through %s: %d queries in %.1f s%n", SCALE, mode,
        queries.size(), total / 1000.0);
    return answers;
  }
}
