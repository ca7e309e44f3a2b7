package io.sluice.client.spark.read;

import io.sluice.client.spark.ShuffleAssignment;
import io.sluice.client.spark.SluiceClientContext;
import io.sluice.client.spark.SluiceShuffleHandle;
import io.sluice.client.spark.read.ShuffleBlockFetcher.PartitionSource;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
 * attempt are dropped. Blocks are fetched ahead in the background ({@link ShuffleBlockFetcher});
 * a partition that cannot be read completely and correctly fails the task with a
 * {@code FetchFailedException} that names a map output of that partition, so that Spark computes
 * it again.
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

  /** Ranges are half-open; {@code endMapIndex} may be {@code Integer.MAX_VALUE} for all maps. */
  public SluiceShuffleReader(SluiceShuffleHandle<K, ?, C> handle, int startMapIndex,
      int endMapIndex, int startPartition, int endPartition, TaskContext context,
      ShuffleReadMetricsReporter metrics, SluiceClientContext client) {
    this.handle = handle;
    this.startMapIndex = startMapIndex;
    this.endMapIndex = endMapIndex;
    this.startPartition = startPartition;
    this.endPartition = endPartition;
    this.context = context;
    this.metrics = metrics;
    this.client = client;
  }

  @Override
  public Iterator<Product2<K, C>> read() {
    ShuffleDependency<K, ?, C> dependency = handle.dependency();
    CountedMaps maps = SparkReadCalls.countedMaps(
        handle.shuffleId(), startMapIndex, endMapIndex, startPartition, endPartition);
    ShuffleBlockFetcher fetcher = new ShuffleBlockFetcher(handle.appId(), handle.shuffleId(),
        sources(maps), FetchSettings.from(client.conf()), client.layout(), client.allocator(),
        client.scheduler());
    RecordIterator records = new RecordIterator(fetcher,
        new BlockDecoder(client.codec(), client.allocator()),
        dependency.serializer().newInstance(), metrics, maps, context::killTaskIfInterrupted,
        () -> {
          fetcher.close();
          SparkReadCalls.mergeReadMetrics(context);
        });
    context.addTaskCompletionListener((TaskCompletionListener) done -> {
      try {
        records.close();
      } finally {
        fetcher.close();
        SparkReadCalls.mergeReadMetrics(done);
      }
    });
    fetcher.start();
    return aggregateAndSort(dependency, new InterruptibleIterator<>(context, records));
  }

  /** Where each needed partition is read from; connects to each server once, on this thread. */
  private List<PartitionSource> sources(CountedMaps maps) {
    ShuffleAssignment assignment = handle.assignment();
    TransportClient[] connections = new TransportClient[assignment.serverCount()];
    List<PartitionSource> sources = new ArrayList<>();
    for (int partition : maps.partitions()) {
      if (partition >= assignment.numPartitions()) {
        throw new IllegalStateException("partition " + partition + " of shuffle "
            + handle.shuffleId() + " is not in its assignment of "
            + assignment.numPartitions() + " partitions");
      }
      int server = assignment.serverOf(partition);
      if (connections[server] == null) {
        connections[server] = connect(maps, partition, assignment, server);
      }
      sources.add(new PartitionSource(partition, connections[server],
          assignment.describe(server), maps.attempts(partition)));
    }
    return sources;
  }

  /** A server that cannot be reached fails the fetch at once: a refused connection is a fact. */
  private TransportClient connect(
      CountedMaps maps, int partition, ShuffleAssignment assignment, int server) {
    try {
      return client.clients().getClient(assignment.host(server), assignment.port(server));
    } catch (IOException e) {
      throw Unchecked.rethrow(maps.fetchFailed(partition, -1, "cannot connect to server "
          + assignment.describe(server) + ", which holds partition " + partition
          + " of shuffle " + handle.shuffleId() + ": " + e.getMessage(), e));
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
      combined = dependency.mapSideCombine()
          ? (Iterator) raw.combineCombinersByKey((Iterator) records, context)
          : (Iterator) raw.combineValuesByKey((Iterator) records, context);
    } else {
      combined = (Iterator) records;
    }
    Option<Ordering<K>> ordering = dependency.keyOrdering();
    Iterator<Product2<K, C>> result = ordering.isDefined()
        ? SparkReadCalls.sortByKey(context, ordering.get(), dependency.serializer(), combined)
        : combined;
    // The aggregator and sorter consume the first interruptible iterator; wrap again for the
    // records they produce.
    return result instanceof InterruptibleIterator
        ? result
        : new InterruptibleIterator<>(context, result);
  }
}
