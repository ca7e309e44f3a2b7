package io.sluice.client.spark.read;

import org.apache.spark.Aggregator;
import org.apache.spark.MapOutputTracker;
import org.apache.spark.Partitioner;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.Iterator;
import scala.collection.Seq;
import scala.math.Ordering;

/**
 * The reader's calls into Spark whose signatures depend on the Spark version (checked with javap
 * against spark-core_2.12 3.5.9): the map output tracker's listing (whose {@code Seq} is
 * {@code scala.collection.immutable.Seq} under Scala 2.13), the sorter, the metrics merge and the
 * fetch-failure exception. A build for another Spark line changes this class only.
 */
final class SparkReadCalls {
  private SparkReadCalls() {}

  /**
   * The map outputs Spark counts for the given maps and partitions. Passes the map range through
   * as is: both 3.5 trackers read {@code Integer.MAX_VALUE} as "up to the last map".
   *
   * @throws org.apache.spark.shuffle.MetadataFetchFailedException if a map output is missing
   */
  static CountedMaps countedMaps(int shuffleId, int startMapIndex, int endMapIndex,
      int startPartition, int endPartition) {
    MapOutputTracker tracker = SparkEnv.get().mapOutputTracker();
    Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> byLocation =
        tracker.getMapSizesByExecutorId(
            shuffleId, startMapIndex, endMapIndex, startPartition, endPartition);
    CountedMaps.Builder maps = new CountedMaps.Builder(shuffleId);
    while (byLocation.hasNext()) {
      Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> location = byLocation.next();
      Iterator<Tuple3<BlockId, Object, Object>> blocks = location._2().iterator();
      while (blocks.hasNext()) {
        Tuple3<BlockId, Object, Object> block = blocks.next();
        if (!(block._1() instanceof ShuffleBlockId id)) {
          throw new IllegalStateException("unexpected block " + block._1() + " of shuffle "
              + shuffleId + " in the map output tracker; is push-based shuffle on?");
        }
        maps.add(location._1(), id.mapId(), (Integer) block._3(), id.reduceId(),
            (Long) block._2());
      }
    }
    return maps.build();
  }

  /** Spark's external sort by key, with its spill and peak-memory metrics and clean-up. */
  static <K, C> Iterator<Product2<K, C>> sortByKey(TaskContext context, Ordering<K> ordering,
      Serializer serializer, Iterator<Product2<K, C>> records) {
    ExternalSorter<K, C, C> sorter = new ExternalSorter<>(context,
        Option.<Aggregator<K, C, C>>empty(), Option.<Partitioner>empty(), Option.apply(ordering),
        serializer);
    return sorter.insertAllAndUpdateMetrics(records);
  }

  /** Folds the task's temporary shuffle read metrics into its task metrics; idempotent. */
  static void mergeReadMetrics(TaskContext context) {
    context.taskMetrics().mergeShuffleReadMetrics();
  }

  static FetchFailedException fetchFailed(BlockManagerId location, int shuffleId, long mapId,
      int mapIndex, int reduceId, String message, Throwable cause) {
    return new FetchFailedException(
        location, shuffleId, mapId, mapIndex, reduceId, message, cause);
  }
}
