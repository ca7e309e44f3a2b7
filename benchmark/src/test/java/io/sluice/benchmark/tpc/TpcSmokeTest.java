package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.fixtures.Daemons;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keeps the TPC benchmark working on both Spark lines: {@code bin/sluice-bench --spark 3.5|4} at
 * the smoke size, one round of each mode, with a coordinator and servers started by the harness
 * through the shipped scripts. Every query must give the same answer in both modes, the sluice mode
 * must really push through the servers, and the JSON, the line's Markdown section (naming the Spark
 * version that ran, with the slowest query's profile from the runs' flight recordings) and the
 * chart must be written (here, not into docs/).
 */
class TpcSmokeTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "Spark {0}")
  @ValueSource(strings = {"3.5", "4"})
  void smokeRunAgreesAcrossModesAndWritesTheReport(String spark) throws Exception {
    // TPC-DS is the benchmark: its smoke run below and the RDD one exercise the harness, the
    // launcher and the report on each line by default; the TPC-style queries would add two and a
    // half minutes per line to the default build.
    assumeTrue(
        Boolean.getBoolean("sluice.spark.lines.full"),
        "the TPC-style smoke run on Spark " + spark + " runs with -Pspark-lines-full");
    Path markdown = dir.resolve("benchmarks.md");
    Path chart = dir.resolve("tpc.png");
    Daemons.Result run =
        Daemons.in(projectRoot())
            .run(
                Map.of(),
                Duration.ofMinutes(10),
                "bin/sluice-bench",
                "--spark",
                spark,
                "--scale",
                "smoke",
                "--rounds",
                "1",
                "--run-timeout",
                "3m",
                "--profile",
                "--output",
                dir.resolve("out").toString(),
                "--data",
                dir.resolve("data").toString(),
                "--markdown",
                markdown.toString(),
                "--chart",
                chart.toString());
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains(answersAgree(8)), run.output());
    for (String query :
        List.of(
            "aggregate",
            "join",
            "sort",
            "skewjoin",
            "groupbykey",
            "repartition",
            "partitionby",
            "smallshuffles")) {
      // builtin, the servers' warm-up run, sluice
      assertEquals(3, count(run.output(), "Query " + query + ": "), run.output());
    }
    assertTrue(run.output().contains("AQE split skewed partitions"), run.output());
    assertTrue(run.output().contains("20 shuffles of 50,000 rows"), run.output());

    String results = results();
    String section = Files.readString(markdown);
    String name = spark.equals("3.5") ? "tpc" : "tpc-spark-4";
    assertTrue(
        section.contains("<!-- BEGIN " + name + " -->")
            && section.contains("<!-- END " + name + " -->"),
        section);
    assertTrue(section.contains("- Spark: " + spark), section);
    assertTrue(section.contains("sluice-client-spark-" + spark + "_"), section);
    assertTrue(section.contains("| skewjoin |"), section);
    assertTrue(section.contains("- Warm-up: one sluice run before round 1"), section);
    assertFiguresAndProfile(name, section, results);
    assertTrue(Files.size(chart) > 1_000, "chart " + chart + " is missing or empty");
  }

  /**
   * The TPC-DS suite at the smoke size on both lines: three of Spark's own TPC-DS query texts on
   * generated data, both modes agreeing, the report in a file of its own. q90 divides by zero at
   * this scale under Spark 4's ANSI mode: it must fail alike in both modes and count as agreeing.
   */
  @ParameterizedTest(name = "Spark {0}")
  @ValueSource(strings = {"3.5", "4"})
  void tpcdsSmokeRunAgreesAcrossModes(String spark) throws Exception {
    // On Spark 3.5 the conformance module's TpcdsAnswersTest runs every query through this
    // benchmark's tables and texts, and the run on Spark 4 exercises the command and its report.
    assumeTrue(
        spark.equals("4") || Boolean.getBoolean("sluice.spark.lines.full"),
        "the TPC-DS smoke run on Spark " + spark + " runs with -Pspark-lines-full");
    Path markdown = dir.resolve("tpcds.md");
    Path chart = dir.resolve("tpcds.png");
    Daemons.Result run =
        Daemons.in(projectRoot())
            .run(
                Map.of(),
                Duration.ofMinutes(10),
                "bin/sluice-bench",
                "--tpcds",
                "--spark",
                spark,
                "--scale",
                "smoke",
                "--rounds",
                "1",
                "--no-warmup",
                "--queries",
                "q3,q72,q90",
                "--run-timeout",
                "4m",
                "--profile",
                "--output",
                dir.resolve("out").toString(),
                "--data",
                dir.resolve("data").toString(),
                "--markdown",
                markdown.toString(),
                "--chart",
                chart.toString());
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains(answersAgree(3)), run.output());
    for (String query : List.of("q3", "q72")) {
      assertEquals(2, count(run.output(), "Query " + query + ": "), run.output());
    }
    assertTrue(run.output().contains("Query q3: 20 rows"), run.output());
    if (spark.equals("4")) {
      assertTrue(
          run.output().contains("failed alike: org.apache.spark.SparkArithmeticException"),
          run.output());
    }
    String section = Files.readString(markdown);
    String name = spark.equals("3.5") ? "tpcds" : "tpcds-spark-4";
    assertTrue(section.contains("<!-- BEGIN " + name + " -->"), section);
    assertTrue(section.contains("| q72 |"), section);
    assertTrue(section.contains("CPU per shuffled GiB (Spark JVM and servers)"), section);
    assertFiguresAndProfile(name, section, results());
    assertTrue(Files.size(chart) > 1_000, "chart " + chart + " is missing or empty");
  }

  /** The RDD workload: its one query on 16 tasks, no tables generated, the 'rdd' section. */
  @Test
  void rddSmokeRunAgreesAcrossModes() throws Exception {
    Path markdown = dir.resolve("benchmarks.md");
    Daemons.Result run =
        Daemons.in(projectRoot())
            .run(
                Map.of(),
                Duration.ofMinutes(10),
                "bin/sluice-bench",
                "--rdd",
                "--scale",
                "smoke",
                "--rounds",
                "1",
                "--no-warmup",
                "--run-timeout",
                "3m",
                "--output",
                dir.resolve("out").toString(),
                "--data",
                dir.resolve("data").toString(),
                "--markdown",
                markdown.toString(),
                "--chart",
                "-");
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(2, count(run.output(), "Query partitionby: 50000 rows"), run.output());
    assertTrue(Files.notExists(dir.resolve("data")), "the RDD workload generated tables");
    String section = Files.readString(markdown);
    assertTrue(section.contains("<!-- BEGIN rdd -->"), section);
    assertTrue(
        section.contains("`partitionBy(new HashPartitioner(16))` of 50,000 records"), section);
  }

  /** The run's record, from the output directory: Sluice's servers must have taken its bytes. */
  private String results() throws IOException {
    Path json;
    try (Stream<Path> files = Files.list(dir.resolve("out"))) {
      json =
          files
              .filter(f -> f.getFileName().toString().startsWith("results-"))
              .findFirst()
              .orElseThrow();
    }
    String results = Files.readString(json);
    long pushed = 0;
    Matcher m = Pattern.compile("\"pushedBytes\":(\\d+)").matcher(results);
    while (m.find()) {
      pushed = Math.max(pushed, Long.parseLong(m.group(1)));
    }
    assertTrue(pushed > 0, "no bytes went through the Sluice servers: " + results);
    assertTrue(results.contains("\"answersAgree\":true"), results);
    return results;
  }

  /**
   * What every workload's report keeps beside its timings: the record of the run's raw figures, the
   * servers' and the Spark JVM's CPU by their threads, and the slowest query's profile.
   */
  private void assertFiguresAndProfile(String name, String section, String results)
      throws IOException {
    assertTrue(Files.readString(dir.resolve(name + ".json")).contains("\"pushedBytes\":"));
    // The servers' CPU by their threads, from their own metric.
    assertTrue(
        section.contains(
            "| Query | network | flush | read | compiler | gc | replication | http | other "
                + "| all |"),
        section);
    assertTrue(results.contains("\"serverThreadCpuMs\":{\"network\":"), results);
    // The Spark JVM's CPU by its threads, from /proc/self/task.
    assertTrue(
        section.contains(
            "| Query | tasks | shuffle client | other Sluice | compiler | gc | other | "
                + "Sluice's servers | all |"),
        section);
    assertTrue(results.contains("\"jvmThreadCpuMs\":{\"tasks\":"), results);
    assertTrue(results.contains("\"profile\":{\"samples\":"), "no query profile: " + results);
    assertTrue(
        section.contains("Profile of `") && section.contains("| Package | builtin | sluice |"),
        section);
  }

  /** The answers' target row of a report, met, for {@code queries} queries. */
  private static String answersAgree(int queries) {
    return "| Every query gave the same row count and checksum in every round and mode | "
        + queries
        + " of "
        + queries
        + " queries | **met** |";
  }

  /** The checkout's root, which the parent POM passes to every test JVM. */
  private static Path projectRoot() {
    return Path.of(System.getProperty("sluice.project.root")).toAbsolutePath();
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
