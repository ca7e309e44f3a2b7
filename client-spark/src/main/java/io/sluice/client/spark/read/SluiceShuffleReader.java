package io.sluice.client.spark.read;

import io.sluice.client.core.read.BlockDecoder;
import io.sluice.client.core.read.PartitionReader;
import io.sluice.client.core.read.PartitionReader.PartitionSource;
import io.sluice.client.core.read.ReadOrder;
import io.sluice.client.spark.DriverLocator;
import io.sluice.client.spark.SluiceClientContext;
import io.sluice.client.spark.SluiceShuffleHandle;
import io.sluice.common.protocol.PartitionLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.Aggregator;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.util.TaskCompletionListener;
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.math.Ordering;

/**
 * Reads a range of a Sluice shuffle's partitions (and, for AQE's skew splits and local reads, a
 * range of its maps) for one reduce task, and hands the records to Spark's own aggregation and
 * sorting as Spark's built-in reader does.
 *
 * <p>The map attempts that count are those of Spark's map output tracker; blocks of any other
 * attempt are dropped. Blocks are fetched ahead in the background by the shuffle protocol's {@link
 * PartitionReader}, from every location each partition had (the shuffle handle's alone when every
 * counted map output says its attempt wrote there only), falling back to replicas (a task's second
 * attempt, such as a speculative copy, starts at the replicas, and so does every attempt where this
 * JVM's writers found the primary slow); a partition that cannot be read completely and correctly
 * fails the task with a {@code FetchFailedException} for the whole shuffle (see {@link
 * CountedMaps#fetchFailed}), so that Spark runs the map stage once more.
 *
 * <p>The metrics reporter is the temporary one Spark's callers pass; it is merged into the task's
 * metrics after the last record or when the task ends, whichever comes first.
 */
public final class SluiceShuffleReader<K, C> implements ShuffleReader<K, C> {
  private final SluiceShuffleHandle<K, ?, C> handle;
  private final int startMapIndex;
  private final int endMapIndex;
  private final int startPartition;
  private final int endPartition;
  private final TaskContext context;
  private final ShuffleReadMetricsReporter metrics;
  private final SluiceClientContext client;
  private final DriverLocator locator;

  /** Ranges are half-open; {@code endMapIndex} may be {@code Integer.MAX_VALUE} for all maps. */
  public SluiceShuffleReader(
      SluiceShuffleHandle<K, ?, C> handle,
      int startMapIndex,
      int endMapIndex,
      int startPartition,
      int endPartition,
      TaskContext context,
      ShuffleReadMetricsReporter metrics,
      SluiceClientContext client,
      DriverLocator locator) {
    this.handle = handle;
    this.startMapIndex = startMapIndex;
    this.endMapIndex = endMapIndex;
    this.startPartition = startPartition;
    this.endPartition = endPartition;
    this.context = context;
    this.metrics = metrics;
    this.client = client;
    this.locator = locator;
  }

  @Override
  public Iterator<Product2<K, C>> read() {
    ShuffleDependency<K, ?, C> dependency = handle.dependency();
    CountedMaps maps =
        CountedMaps.fromTracker(
            handle.shuffleId(), startMapIndex, endMapIndex, startPartition, endPartition);
    PartitionReader reader =
        new PartitionReader(
            handle.appId(),
            handle.shuffleId(),
            sources(maps),
            client.fetchSettings(),
            client.connections(handle),
            client.allocator(),
            client.scheduler(),
            handle.counters(),
            readOrder(maps));
    RecordIterator records =
        new RecordIterator(
            reader,
            new BlockDecoder(client.codec(), client.allocator(), client.blockCipher()),
            dependency.serializer().newInstance(),
            metrics,
            handle.counters()::read,
            maps,
            client.sortShuffleSizes(),
            context::killTaskIfInterrupted,
            () -> {
              reader.close();
              context.taskMetrics().mergeShuffleReadMetrics();
            });
    context.addTaskCompletionListener(
        (TaskCompletionListener)
            done -> {
              try {
                records.close();
              } finally {
                reader.close();
                done.taskMetrics().mergeShuffleReadMetrics();
              }
            });
    reader.start();
    return aggregateAndSort(dependency, new InterruptibleIterator<>(context, records));
  }

  /**
   * The task attempt's rotation around each chain, passing over the servers found slow: by this
   * executor's writers in the last minute, or by those of any executor that wrote a counted map
   * output (as it ended), so that an executor that wrote nothing to a slow server (or nothing at
   * all) reads its replicas too.
   */
  private ReadOrder readOrder(CountedMaps maps) {
    Set<String> foundByWriters = maps.slowServers();
    return new ReadOrder(
        context.attemptNumber(),
        server -> foundByWriters.contains(server) || client.pushPace().foundSlowRecently(server));
  }

  /**
   * Where each needed partition is read from: every location it had, as the driver knows them. The
   * driver is asked only when a partition has bytes to read and some counted map attempt wrote
   * elsewhere than the shuffle handle's locations; when none did (the usual case), the handle's
   * locations hold every counted block and the round trip is saved.
   */
  private List<PartitionSource> sources(CountedMaps maps) {
    int[] partitions = maps.partitions();
    List<PartitionSource> sources = new ArrayList<>();
    if (partitions.length == 0) {
      return sources;
    }
    int numPartitions = handle.locations().numPartitions();
    int last = partitions[partitions.length - 1];
    if (last >= numPartitions) {
      throw new IllegalStateException(
          "partition "
              + last
              + " of shuffle "
              + handle.shuffleId()
              + " is not among its "
              + numPartitions
              + " partitions");
    }
    Map<Integer, List<PartitionLocation>> locations =
        maps.atFirstLocationsOnly()
            ? firstLocations(partitions)
            : driverLocations(maps, partitions);
    for (int partition : partitions) {
      sources.add(
          new PartitionSource(
              partition,
              locations.get(partition),
              maps.attempts(partition),
              maps.bytes(partition)));
    }
    return sources;
  }

  private Map<Integer, List<PartitionLocation>> firstLocations(int[] partitions) {
    Map<Integer, List<PartitionLocation>> locations = new HashMap<>();
    for (int partition : partitions) {
      locations.put(partition, List.of(handle.locations().location(partition)));
    }
    return locations;
  }

  private Map<Integer, List<PartitionLocation>> driverLocations(
      CountedMaps maps, int[] partitions) {
    try {
      return locator.allLocations(partitions);
    } catch (IOException e) {
      throw Unchecked.rethrow(maps.fetchFailed(partitions[0], e.getMessage(), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      context.killTaskIfInterrupted();
      throw Unchecked.rethrow(e);
    }
  }

  /** Spark's reduce side, as its BlockStoreShuffleReader composes it. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Iterator<Product2<K, C>> aggregateAndSort(
      ShuffleDependency<K, ?, C> dependency, Iterator<Tuple2<Object, Object>> records) {
    Iterator<Product2<K, C>> combined;
    Option<? extends Aggregator<K, ?, C>> aggregator = dependency.aggregator();
    if (aggregator.isDefined()) {
      Aggregator raw = aggregator.get();
      // Map-side combine wrote combiners; otherwise the values still need combining.
      combined =
          dependency.mapSideCombine()
              ? (Iterator) raw.combineCombinersByKey((Iterator) records, context)
              : (Iterator) raw.combineValuesByKey((Iterator) records, context);
    } else {
      combined = (Iterator) records;
    }
    Option<Ordering<K>> ordering = dependency.keyOrdering();
    Iterator<Product2<K, C>> result =
        ordering.isDefined()
            ? SparkReadCalls.sortByKey(context, ordering.get(), dependency.serializer(), combined)
            : combined;
    // The aggregator and sorter consume the first interruptible iterator; wrap again for the
    // records they produce.
    return result instanceof InterruptibleIterator
        ? result
        : new InterruptibleIterator<>(context, result);
  }
}
