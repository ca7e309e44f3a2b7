package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.spark.SluiceShuffleEvent;
import io.sluice.testcluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.JsonProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Did my job use Sluice? Each shuffle's {@link SluiceShuffleEvent} in Spark's event log, which the
 * history server replays: through Sluice with its servers and copies, or run with the sort shuffle
 * with the reason. Read back with Spark's own event-log parser, as the history server reads it.
 */
class ShuffleEventLogTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path eventLogs;

  @Test
  void eachShuffleIsLoggedAsTakenBySluiceOrFallenBackWithTheReason() throws Exception {
    try (MiniCluster cluster = new MiniCluster(2, Map.of())) {
      SparkConf sluice =
          conf(cluster, "through-sluice", eventLogs.resolve("sluice"))
              .set("spark.sluice.replicas", "2");
      job(sluice);
      List<SluiceShuffleEvent> taken = events(eventLogs.resolve("sluice"));
      assertEquals(1, taken.size(), "one event per shuffle: " + taken);
      SluiceShuffleEvent event = taken.get(0);
      assertTrue(event.sluice(), event.toString());
      assertEquals(2, event.partitions());
      assertEquals(2, event.copies());
      assertEquals(2, event.servers().size(), event.toString());
      assertNull(event.fallbackReason());
      assertEquals(
          List.of("bytesPushed", "bytesRead", "pushRetries", "fetchRetries", "replicaReads"),
          List.copyOf(event.counters().keySet()),
          "the accumulators the Sluice tab sums: " + event);

      SparkConf fallBack =
          conf(cluster, "fallen-back", eventLogs.resolve("fallback"))
              .set("spark.sluice.fallback.enabled", "true")
              .set("spark.sluice.server.tags", "no-server-has-this-tag");
      job(fallBack);
      List<SluiceShuffleEvent> fell = events(eventLogs.resolve("fallback"));
      assertEquals(1, fell.size(), "one event per shuffle: " + fell);
      assertFalse(fell.get(0).sluice(), fell.get(0).toString());
      assertEquals(0, fell.get(0).copies());
      assertEquals(Map.of(), fell.get(0).counters());
      assertTrue(
          fell.get(0).fallbackReason().contains("no-server-has-this-tag"),
          "the reason names what no server offers: " + fell.get(0).fallbackReason());
    }
  }

  private static SparkConf conf(MiniCluster cluster, String app, Path logDir) throws Exception {
    Files.createDirectories(logDir);
    return SparkSessions.withSluice(SparkSessions.base("local[2]", app), cluster)
        .set("spark.eventLog.enabled", "true")
        .set("spark.eventLog.dir", logDir.toUri().toString());
  }

  private static void job(SparkConf conf) {
    SparkSession spark = SparkSessions.start(conf, Map.of());
    try {
      List<Tuple2<Integer, Integer>> sums =
          JavaSparkContext.fromSparkContext(spark.sparkContext())
              .parallelize(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9), 3)
              .mapToPair(i -> new Tuple2<>(i % 4, i))
              .reduceByKey(Integer::sum, 2)
              .collect();
      assertEquals(4, sums.size());
    } finally {
      spark.stop();
    }
  }

  /**
   * The Sluice events of the one application logged in {@code dir}, parsed as Spark parses them.
   */
  private static List<SluiceShuffleEvent> events(Path dir) throws Exception {
    List<Path> logs;
    try (Stream<Path> files = Files.list(dir)) {
      logs = files.toList();
    }
    assertEquals(1, logs.size(), "one event log: " + logs);
    List<SluiceShuffleEvent> events = new ArrayList<>();
    for (String line : Files.readAllLines(logs.get(0))) {
      if (SluiceShuffleEvent.class.getName().equals(JSON.readTree(line).path("Event").asText())) {
        events.add((SluiceShuffleEvent) JsonProtocol.sparkEventFromJson(line));
      }
    }
    return events;
  }
}
