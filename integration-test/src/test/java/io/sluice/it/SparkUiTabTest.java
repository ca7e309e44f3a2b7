package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MetricsScrape;
import io.sluice.testcluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * The Sluice tab of Spark's UI as a user's browser shows it ({@link HeadlessChromium}): live while
 * the application runs, and from Spark's history server (a process of its own with the shaded
 * client jar) after it ended, replayed from the event log. The application writes one shuffle with
 * two copies on three servers, reads it, loses a server that forwarded copies (so it was first in
 * some partition's chain), and reads the shuffle again: the tab must show the replica reads, and
 * bytes that agree with the servers' own metrics.
 */
class SparkUiTabTest {
  private static final Pattern CELL =
      Pattern.compile("<td class=\"([a-z-]+)\"(?: [^>]*data-bytes=\"(\\d+)\")?[^>]*>(.*?)</td>");
  private static final int KEYS = 1000;
  private static final int RECORDS = 200_000;
  private static final int MAP_STAGE = 0;

  /** The cluster whose server a map task stops (tasks run in this JVM with a local master). */
  private static volatile MiniCluster lossCluster;

  private static final AtomicBoolean serverStopped = new AtomicBoolean();

  @TempDir Path dir;

  @Test
  void theTabShowsTheShuffleLiveAndInTheHistoryServer() throws Exception {
    Path logs = Files.createDirectories(dir.resolve("event-logs"));
    try (MiniCluster cluster = new MiniCluster(3, Map.of())) {
      SparkConf conf =
          SparkSessions.withSluice(SparkSessions.base("local[2]", "sluice-tab"), cluster)
              .set("spark.ui.enabled", "true")
              .set("spark.ui.port", "0")
              .set("spark.sluice.replicas", "2")
              .set("spark.eventLog.enabled", "true")
              .set("spark.eventLog.dir", logs.toUri().toString());
      SparkSession spark = SparkSessions.start(conf, Map.of());
      String appId = spark.sparkContext().applicationId();
      Map<String, String> live;
      long forwarded;
      try {
        JavaPairRDD<Integer, Long> sums =
            JavaSparkContext.fromSparkContext(spark.sparkContext())
                .parallelize(IntStream.range(0, RECORDS).boxed().toList(), 4)
                .mapToPair(i -> new Tuple2<>(i % KEYS, (long) i))
                .reduceByKey(Long::sum, 6);
        assertEquals(KEYS, sums.count());
        forwarded = 0;
        int primary = -1;
        for (int i = 0; i < cluster.servers().size(); i++) {
          double bytes =
              MetricsScrape.fetch(cluster.servers().get(i).httpPort())
                  .sum("sluice_server_replicated_bytes_total");
          forwarded += (long) bytes;
          if (bytes > 0 && primary < 0) {
            primary = i;
          }
        }
        assertTrue(primary >= 0, "some server forwarded copies");
        cluster.stopServer(primary);
        long total = (long) RECORDS * (RECORDS - 1) / 2;
        assertEquals(total, (long) sums.values().reduce(Long::sum));
        spark.sparkContext().listenerBus().waitUntilEmpty(30_000);

        String url = spark.sparkContext().uiWebUrl().get() + "/sluice/";
        String dom = HeadlessChromium.dom(url, dir.resolve("profile-live"));
        assertTrue(dom.contains("Sluice shuffles"), dom);
        assertTrue(dom.contains("1 shuffle: 1 through Sluice, 0 with Spark's sort shuffle."), dom);
        live = row(dom, 0);
      } finally {
        spark.stop();
      }
      assertEquals("Sluice", live.get("taken-by"), live.toString());
      assertEquals("6", live.get("partitions"));
      assertEquals("2", live.get("copies"));
      assertEquals(3, live.get("servers").split(", ").length, live.toString());
      long pushed = Long.parseLong(live.get("bytes-pushed"));
      // Every block went to a first server that forwarded it once to the second.
      assertEquals(forwarded, pushed, "bytes pushed, as the servers counted them: " + live);
      assertEquals(2 * pushed, Long.parseLong(live.get("bytes-read")), "read twice: " + live);
      assertTrue(Long.parseLong(live.get("replica-reads")) > 0, live.toString());
      assertEquals("0", live.get("fetch-failures"), live.toString());
      assertEquals("0", live.get("map-stage-reruns"), live.toString());
      assertEquals("0", live.get("relocations"), live.toString());

      try (SparkHistoryServer history =
          SparkHistoryServer.start("3.5", logs, dir.resolve("history-server.log"))) {
        assertEquals(appId, history.awaitApplication());
        String dom =
            HeadlessChromium.dom(
                history.url() + "/history/" + appId + "/sluice/", dir.resolve("profile-history"));
        assertTrue(dom.contains("Sluice shuffles"), dom + "\nlog:\n" + history.log());
        assertEquals(live, row(dom, 0), "the history server shows what the live UI showed");
      }
    }
  }

  /**
   * A server lost while map tasks push, with one copy of each partition: the writers move the
   * partitions it held to the other servers, the readers find the blocks it held gone, and Spark
   * runs the lost map outputs again. The tab's relocations, fetch failures and map stage re-runs
   * are checked against what Spark's own listener saw. A map task running beside the one that stops
   * the server may have pushed blocks to it that it took before it went: that task's commit fails
   * and Spark runs it again, as on a cluster ({@code local[2,4]}; with one attempt the job would
   * abort).
   */
  @Test
  void aServerLostWhileMapsPushShowsItsRelocationsFetchFailuresAndReruns() throws Exception {
    try (MiniCluster cluster = new MiniCluster(3, Map.of())) {
      lossCluster = cluster;
      serverStopped.set(false);
      SparkConf conf =
          SparkSessions.withSluice(SparkSessions.base("local[2,4]", "sluice-loss"), cluster)
              .set("spark.ui.enabled", "true")
              .set("spark.ui.port", "0");
      SparkSession spark = SparkSessions.start(conf, Map.of());
      JobObserver observer = new JobObserver();
      spark.sparkContext().addSparkListener(observer);
      Map<String, String> shown;
      try {
        long sum =
            JavaSparkContext.fromSparkContext(spark.sparkContext())
                .parallelize(IntStream.range(0, RECORDS).boxed().toList(), 8)
                .mapPartitionsWithIndex(
                    (index, records) -> {
                      // The third map task starts once a first one has committed its output.
                      if (index == 2 && serverStopped.compareAndSet(false, true)) {
                        lossCluster.stopServer(0);
                      }
                      return records;
                    },
                    true)
                .mapToPair(i -> new Tuple2<>(i % KEYS, (long) i))
                .reduceByKey(Long::sum, 6)
                .values()
                .reduce(Long::sum);
        assertEquals((long) RECORDS * (RECORDS - 1) / 2, sum);
        spark.sparkContext().listenerBus().waitUntilEmpty(30_000);
        shown =
            row(
                HeadlessChromium.dom(
                    spark.sparkContext().uiWebUrl().get() + "/sluice/", dir.resolve("profile")),
                0);
      } finally {
        spark.stop();
      }
      assertTrue(Integer.parseInt(shown.get("relocations")) > 0, shown.toString());
      assertTrue(Integer.parseInt(shown.get("relocated-partitions")) > 0, shown.toString());
      long fetchFailed =
          observer.failures().stream().filter(f -> f.contains("FetchFailed")).count();
      assertTrue(fetchFailed > 0, "Spark saw the lost blocks: " + observer.failures());
      assertEquals(
          Long.toString(fetchFailed),
          shown.get("fetch-failures"),
          observer.failures() + " " + shown);
      assertEquals(
          Integer.toString(observer.submissions().get(MAP_STAGE) - 1),
          shown.get("map-stage-reruns"),
          observer.submissions() + " " + shown);
      assertEquals("0", shown.get("replica-reads"), "one copy: " + shown);
    }
  }

  /** The cells of a shuffle's row by column class; bytes as their exact count. */
  private static Map<String, String> row(String dom, int shuffleId) {
    int start = dom.indexOf("<tr id=\"shuffle-" + shuffleId + "\">");
    assertTrue(start >= 0, "shuffle " + shuffleId + " in " + dom);
    String tr = dom.substring(start, dom.indexOf("</tr>", start));
    Map<String, String> cells = new LinkedHashMap<>();
    Matcher m = CELL.matcher(tr);
    while (m.find()) {
      cells.put(m.group(1), m.group(2) != null ? m.group(2) : m.group(3));
    }
    assertEquals(
        List.of(
            "shuffle",
            "partitions",
            "taken-by",
            "copies",
            "servers",
            "bytes-pushed",
            "bytes-read",
            "push-retries",
            "fetch-retries",
            "relocations",
            "relocated-partitions",
            "replica-reads",
            "fetch-failures",
            "map-stage-reruns"),
        List.copyOf(cells.keySet()),
        tr);
    return cells;
  }
}
