package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The same shuffle suite on every Spark line: the examples jar's {@code ShuffleSuiteJob} (RDD
 * operators, map and reduce tasks whose first attempt fails half-way, SQL under adaptive execution
 * with coalescing and a skew split) submitted with SparkSubmit, with the built-in shuffle and
 * through Sluice with only that line's client jar. Every case's rows, what adaptive execution did
 * with each query, and Spark's count of failed tasks and stage re-runs must be the same both ways.
 * The line's history server then shows the Sluice run's shuffles in the Sluice tab (headless
 * Chromium): Spark 4's by default, the Spark 3 lines' with {@code -Pspark-lines-full}.
 */
class SparkLinesSuiteTest {
  private static final int CASES = 18;
  private static final int SQL_CASES = 8;
  private static final Pattern SHUFFLES =
      Pattern.compile("(\\d+) shuffles?: (\\d+) through Sluice, 0 with Spark's sort shuffle");
  private static final Pattern BYTES_PUSHED =
      Pattern.compile("class=\"bytes-pushed\"[^>]* data-bytes=\"(\\d+)\"");
  private static MiniCluster cluster;
  private static Path logs;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new MiniCluster(3, Map.of());
    logs = Files.createTempDirectory("sluice-spark-lines");
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  /**
   * Spark 3.5 and 3.4 run here only with {@code -Pspark-lines-full} (about 90 s each): the default
   * build runs Spark's own suites, {@link AdaptivePlanParityTest} and {@link SparkUiTabTest} on
   * 3.5, and jobs on 3.4 in the {@link SparkLinesFaultTest} cases it gives that line.
   */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"3.5", "4", "3.4", "3.3"},
      byDefault = {"4", "3.3"})
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void sameAnswersAndPlansAsTheBuiltInShuffle(String line) throws Exception {
    String versionPrefix = line + ".";
    Daemons.Result builtIn = submit(line, List.of());
    assertEquals(0, builtIn.exitCode(), builtIn.output());
    long pushedBefore = cluster.pushedBytes();
    Path eventLogs = Files.createDirectories(logs.resolve("event-logs-" + line));
    List<String> throughSluice = new ArrayList<>(SubmittedJob.throughSluice(cluster));
    throughSluice.addAll(
        List.of(
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            "spark.eventLog.dir=" + eventLogs.toUri()));
    Daemons.Result sluice = submit(line, throughSluice);
    assertEquals(0, sluice.exitCode(), sluice.output());
    SubmittedJob.assertNoLeak(sluice);
    assertTrue(cluster.pushedBytes() > pushedBefore, "nothing went through Sluice");
    assertTrue(
        sluice
            .output()
            .contains("Shuffle manager: " + SparkSessions.MANAGER + ", Spark " + versionPrefix),
        sluice.output());

    List<String> expected = results(builtIn.output());
    assertEquals(CASES + 2 * SQL_CASES + 1, expected.size(), builtIn.output());
    assertTrue(expected.contains("Failed tasks: 2, stage re-runs: 0"), expected.toString());
    assertTrue(
        expected.contains("Plan skew-join: 0 coalesced shuffle reads, 1 skew splits"),
        "the skew join should have been split: " + expected);
    assertTrue(
        expected.contains("Plan group-by: 1 coalesced shuffle reads, 0 skew splits"),
        "partitions should have been coalesced: " + expected);
    List<String> joins =
        expected.stream().filter(l -> l.startsWith("Decisions hash-join-")).toList();
    assertTrue(
        joins.stream().anyMatch(l -> l.contains("shuffled hash join"))
            && joins.stream().anyMatch(l -> l.contains("sort-merge join")),
        "the thresholds should straddle the join's partition sizes: " + joins);
    assertTrue(
        expected.stream()
            .anyMatch(l -> l.startsWith("Decisions rebalance: ") && l.contains("skew split")),
        "the rebalance should have been split: " + expected);
    assertEquals(expected, results(sluice.output()));
    // The Spark 3 lines share the tab's code, and SparkUiTabTest sees it in 3.5's history server:
    // 3.4's and 3.3's run with the full profile, for the suite's time.
    if (!line.startsWith("3.") || Boolean.getBoolean(SparkLinesSource.FULL_PROPERTY)) {
      assertTheHistoryServerShowsTheSluiceTab(line, eventLogs);
    }
  }

  /** The line's history server, with the line's client jar, shows every shuffle in the tab. */
  private static void assertTheHistoryServerShowsTheSluiceTab(String line, Path eventLogs)
      throws Exception {
    try (SparkHistoryServer history =
        SparkHistoryServer.start(
            line, eventLogs, logs.resolve("history-server-" + line + ".log"))) {
      String appId = history.awaitApplication();
      String dom =
          HeadlessChromium.dom(
              history.url() + "/history/" + appId + "/sluice/",
              Files.createTempDirectory(logs, "chromium"));
      Matcher summary = SHUFFLES.matcher(dom);
      assertTrue(summary.find(), dom + "\nlog:\n" + history.log());
      int shuffles = Integer.parseInt(summary.group(1));
      assertTrue(shuffles > 0, summary.group());
      assertEquals(shuffles, Integer.parseInt(summary.group(2)), "all through Sluice: " + dom);
      Matcher pushed = BYTES_PUSHED.matcher(dom);
      long bytes = 0;
      while (pushed.find()) {
        bytes += Long.parseLong(pushed.group(1));
      }
      assertTrue(bytes > 0, "the tab counts the bytes pushed: " + dom);
    }
  }

  private static Daemons.Result submit(String line, List<String> conf) throws Exception {
    return SubmittedJob.run(logs, line, "local[2,4]", "io.sluice.examples.ShuffleSuiteJob", conf);
  }

  /** The lines the job prints for comparison, in order. */
  private static List<String> results(String output) {
    return output
        .lines()
        .filter(
            l ->
                l.startsWith("Case ")
                    || l.startsWith("Plan ")
                    || l.startsWith("Decisions ")
                    || l.startsWith("Failed tasks: "))
        .toList();
  }
}
