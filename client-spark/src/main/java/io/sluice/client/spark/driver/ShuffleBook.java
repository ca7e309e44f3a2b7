package io.sluice.client.spark.driver;

import io.sluice.client.spark.ShuffleLocations;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The driver's authoritative record of where one shuffle's partitions live: every partition's
 * epoch-0 location from the assignment, and for partitions that moved, every later location in
 * order. Only moved partitions cost memory beyond the assignment. Thread-safe.
 */
final class ShuffleBook {
  private final int shuffleId;
  private final ShuffleLocations initial;
  private final Map<Integer, List<PartitionLocation>> moved = new HashMap<>();
  private final Object relocations = new Object();

  ShuffleBook(int shuffleId, ShuffleLocations initial) {
    this.shuffleId = shuffleId;
    this.initial = initial;
  }

  int shuffleId() {
    return shuffleId;
  }

  int numPartitions() {
    return initial.numPartitions();
  }

  /**
   * Held by a relocation of this shuffle for all its length, remote calls included, so that the
   * shuffle's relocations take turns. The book's own monitor guards only its data, and briefly:
   * executors asking for locations (on the driver endpoint's event loops) never wait for a
   * relocation's calls to the coordinator and servers.
   */
  Object relocations() {
    return relocations;
  }

  /** The location the partition is written to now. */
  synchronized PartitionLocation current(int partition) {
    List<PartitionLocation> later = moved.get(partition);
    return later == null ? initial.location(partition) : later.get(later.size() - 1);
  }

  /**
   * Every location of the partitions in {@code [start, end)} that moved, oldest first, keyed by
   * partition; partitions that never moved are absent (their only location is the epoch-0 one).
   */
  synchronized Map<Integer, List<PartitionLocation>> movedIn(int start, int end) {
    Map<Integer, List<PartitionLocation>> result = new HashMap<>();
    for (Map.Entry<Integer, List<PartitionLocation>> e : moved.entrySet()) {
      if (e.getKey() >= start && e.getKey() < end) {
        List<PartitionLocation> all = new ArrayList<>();
        all.add(initial.location(e.getKey()));
        all.addAll(e.getValue());
        result.put(e.getKey(), all);
      }
    }
    return result;
  }

  /** Makes {@code location} the partition's current one; its epoch must follow the current. */
  synchronized void move(int partition, PartitionLocation location) {
    if (location.epoch() != current(partition).epoch() + 1) {
      throw new IllegalStateException(
          "partition "
              + partition
              + " of shuffle "
              + shuffleId
              + " is at epoch "
              + current(partition).epoch()
              + ", not "
              + (location.epoch() - 1));
    }
    moved.computeIfAbsent(partition, p -> new ArrayList<>()).add(location);
  }

  /** Every server any location of the shuffle named. */
  synchronized Set<ServerAddress> allServers() {
    Set<ServerAddress> all = new LinkedHashSet<>(initial.servers());
    for (List<PartitionLocation> later : moved.values()) {
      for (PartitionLocation l : later) {
        all.addAll(l.servers());
      }
    }
    return all;
  }
}
