package io.sluice.client.spark.read;

import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.client.spark.MapOutputLocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.MapOutputTracker;
import org.apache.spark.SparkEnv;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * The map outputs a reduce task reads, as Spark's map output tracker lists them: for each
 * partition, the map attempts whose output counts (the attempt each MapStatus records) and wrote
 * bytes to it. Speculative and failed attempts are absent, so their blocks are dropped on read.
 */
final class CountedMaps {

  /**
   * One map output that counts.
   *
   * @param taskAttemptId Spark's mapId: the task attempt that wrote it
   * @param mapIndex the map task's index in its stage
   * @param location where Spark's MapStatus says the output is
   * @param bytes its size in the partition, as the MapStatus holds it (rounded)
   */
  record MapOutput(long taskAttemptId, int mapIndex, BlockManagerId location, long bytes) {}

  private final int shuffleId;
  private final TreeMap<Integer, List<MapOutput>> byPartition;

  private CountedMaps(int shuffleId, TreeMap<Integer, List<MapOutput>> byPartition) {
    this.shuffleId = shuffleId;
    this.byPartition = byPartition;
  }

  /**
   * The map outputs Spark counts for the given maps and partitions. Passes the map range through as
   * is: the trackers of Spark 3.5 and 4.x read {@code Integer.MAX_VALUE} as "up to the last map".
   *
   * @throws org.apache.spark.shuffle.MetadataFetchFailedException if a map output is missing
   */
  static CountedMaps fromTracker(
      int shuffleId, int startMapIndex, int endMapIndex, int startPartition, int endPartition) {
    MapOutputTracker tracker = SparkEnv.get().mapOutputTracker();
    Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> byLocation =
        tracker.getMapSizesByExecutorId(
            shuffleId, startMapIndex, endMapIndex, startPartition, endPartition);
    CountedMaps.Builder maps = new Builder(shuffleId);
    while (byLocation.hasNext()) {
      Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> location = byLocation.next();
      Iterator<Tuple3<BlockId, Object, Object>> blocks = location._2().iterator();
      while (blocks.hasNext()) {
        Tuple3<BlockId, Object, Object> block = blocks.next();
        if (!(block._1() instanceof ShuffleBlockId id)) {
          throw new IllegalStateException(
              "unexpected block "
                  + block._1()
                  + " of shuffle "
                  + shuffleId
                  + " in the map output tracker; is push-based shuffle on?");
        }
        maps.add(location._1(), id.mapId(), (Integer) block._3(), id.reduceId(), (Long) block._2());
      }
    }
    return maps.build();
  }

  int shuffleId() {
    return shuffleId;
  }

  /** The partitions with at least one counted map output of more than zero bytes, ascending. */
  int[] partitions() {
    return byPartition.keySet().stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Whether every counted map output says its attempt wrote to epoch-0 locations alone ({@link
   * MapOutputLocation#wroteToFirstLocationsOnly}): then the shuffle handle's locations hold all
   * there is to read.
   */
  boolean atFirstLocationsOnly() {
    for (List<MapOutput> outputs : byPartition.values()) {
      for (MapOutput output : outputs) {
        if (!MapOutputLocation.wroteToFirstLocationsOnly(output.location())) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The servers that the executors which wrote the counted map outputs (with bytes) had found slow
   * ({@link MapOutputLocation#slowServers}).
   */
  Set<String> slowServers() {
    // Every output of an executor names the same location: each is parsed once.
    Set<BlockManagerId> locations = new HashSet<>();
    for (List<MapOutput> outputs : byPartition.values()) {
      for (MapOutput output : outputs) {
        locations.add(output.location());
      }
    }
    Set<String> slow = new HashSet<>();
    for (BlockManagerId location : locations) {
      slow.addAll(MapOutputLocation.slowServers(location));
    }
    return slow;
  }

  /** About how many bytes the counted map attempts wrote to {@code partition}. */
  long bytes(int partition) {
    return outputs(partition).stream().mapToLong(MapOutput::bytes).sum();
  }

  /** The counted map attempts with bytes in {@code partition}. */
  long[] attempts(int partition) {
    return outputs(partition).stream().mapToLong(MapOutput::taskAttemptId).toArray();
  }

  /**
   * The exception that makes Spark compute the shuffle's whole map output again: it names the
   * shuffle's synthetic executor and no single map (see {@link MapOutputLocation}), so that one
   * lost partition costs one re-run of the map stage.
   */
  FetchFailedException fetchFailed(int partition, String message, Throwable cause) {
    return new FetchFailedException(
        MapOutputLocation.ofLostShuffle(shuffleId), shuffleId, -1L, -1, partition, message, cause);
  }

  FetchFailedException fetchFailed(PartitionFetchException e) {
    return fetchFailed(e.partition(), e.getMessage(), e);
  }

  private List<MapOutput> outputs(int partition) {
    return byPartition.getOrDefault(partition, List.of());
  }

  /** Collects the tracker's blocks. */
  static final class Builder {
    private final int shuffleId;
    private final TreeMap<Integer, List<MapOutput>> byPartition = new TreeMap<>();

    Builder(int shuffleId) {
      this.shuffleId = shuffleId;
    }

    /**
     * One block of the tracker's listing: map output {@code mapId} (a task attempt id) has {@code
     * size} bytes for {@code reduceId}. Empty ones are skipped: nothing was written.
     */
    Builder add(BlockManagerId location, long mapId, int mapIndex, int reduceId, long size) {
      if (size > 0) {
        byPartition
            .computeIfAbsent(reduceId, k -> new ArrayList<>())
            .add(new MapOutput(mapId, mapIndex, location, size));
      }
      return this;
    }

    CountedMaps build() {
      TreeMap<Integer, List<MapOutput>> copy = new TreeMap<>();
      for (Map.Entry<Integer, List<MapOutput>> e : byPartition.entrySet()) {
        copy.put(e.getKey(), List.copyOf(e.getValue()));
      }
      return new CountedMaps(shuffleId, copy);
    }
  }
}
