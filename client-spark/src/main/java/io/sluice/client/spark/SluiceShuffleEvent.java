package io.sluice.client.spark;

import java.util.List;
import java.util.Map;
import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * What became of a shuffle when the driver registered it: taken by Sluice (its servers, and how
 * many copies each partition has) or run with Spark's sort shuffle (and why). Posted to Spark's
 * listener bus, so listeners see it and the event log keeps it: Spark writes an event of its own
 * kind as the JSON of its fields, tagged {@code "Event"} with this class's name, and reads it back
 * where the class is on the class path (a history server given the client jar).
 *
 * @param copies how many servers hold each partition (0 with the sort shuffle)
 * @param servers the servers the partitions were placed on, as {@code id@host:port}
 * @param fallbackReason why Sluice could not take the shuffle, or null when it did
 * @param counters the accumulator id of each of the shuffle's {@link ShuffleCounters}, by name
 *     (empty with the sort shuffle; null in event logs of clients before they were counted)
 */
public record SluiceShuffleEvent(
    int shuffleId,
    int partitions,
    boolean sluice,
    int copies,
    List<String> servers,
    String fallbackReason,
    Map<String, Long> counters)
    implements SparkListenerEvent {

  static SluiceShuffleEvent registered(
      int shuffleId, ShuffleLocations locations, ShuffleCounters counters) {
    int partitions = locations.numPartitions();
    return new SluiceShuffleEvent(
        shuffleId,
        partitions,
        true,
        partitions == 0 ? 0 : locations.location(0).servers().size(),
        locations.servers().stream().map(Object::toString).toList(),
        null,
        counters.accumulatorIds());
  }

  static SluiceShuffleEvent fellBack(int shuffleId, int partitions, String reason) {
    return new SluiceShuffleEvent(shuffleId, partitions, false, 0, List.of(), reason, Map.of());
  }

  /** The driver's log line for this event. */
  String describe() {
    return sluice
        ? "Shuffle "
            + shuffleId
            + " ("
            + partitions
            + " partitions) goes through Sluice: "
            + copies
            + (copies == 1 ? " copy" : " copies")
            + " of each partition on servers "
            + servers
        : "Shuffle "
            + shuffleId
            + " runs with Spark's sort shuffle: Sluice cannot take it ("
            + fallbackReason
            + ")";
  }
}
