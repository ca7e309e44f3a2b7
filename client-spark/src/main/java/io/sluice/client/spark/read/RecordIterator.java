package io.sluice.client.spark.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.sluice.client.core.codec.CorruptBlockException;
import io.sluice.client.core.read.BlockDecoder;
import io.sluice.client.core.read.BlockSource;
import io.sluice.client.core.read.FetchedBlock;
import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.client.spark.SortShuffleSizes;
import java.io.IOException;
import java.util.HashSet;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import scala.Tuple2;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.Iterator$;

/**
 * The records of every fetched block, block after block, on the task's thread: decompresses each
 * block (the reader checked its CRC32C), deserializes it with one stream (the writer closed one
 * serialize stream per block), and reports Spark's shuffle read metrics. A partition that cannot be
 * read, or a block whose CRC or compression is wrong, surfaces here as Spark's {@code
 * FetchFailedException}.
 *
 * <p>Not thread-safe: the task's thread only, including {@link #close()} from a task completion
 * listener.
 */
final class RecordIterator extends AbstractIterator<Tuple2<Object, Object>> {
  private final BlockSource source;
  private final BlockDecoder decoder;
  private final SerializerInstance serializer;
  private final ShuffleReadMetricsReporter metrics;
  private final LongConsumer storedBytesRead;
  private final CountedMaps maps;
  private final SortShuffleSizes sizes;

  /** The map outputs' partitions already begun, each counted once as Spark counts a stream. */
  private final Set<MapPartition> streamsBegun = new HashSet<>();

  private final Runnable whileWaiting;
  private final Runnable onExhausted;

  private Iterator<Tuple2<Object, Object>> records = noRecords();
  private DeserializationStream stream;
  private ByteBufInputStream input;
  private boolean exhausted;
  private long waitNanos;
  private long reportedWaitMillis;
  private long reportedRequestMillis;

  /**
   * @param storedBytesRead told the size of each block as the servers stored it
   * @param maps names the map output to compute again when a block cannot be read
   * @param sizes the bytes read are counted as the map tasks counted the bytes written
   * @param whileWaiting runs while the task waits for a block (it throws if the task was killed)
   * @param onExhausted runs once, after the last record
   */
  RecordIterator(
      BlockSource source,
      BlockDecoder decoder,
      SerializerInstance serializer,
      ShuffleReadMetricsReporter metrics,
      LongConsumer storedBytesRead,
      CountedMaps maps,
      SortShuffleSizes sizes,
      Runnable whileWaiting,
      Runnable onExhausted) {
    this.source = source;
    this.decoder = decoder;
    this.serializer = serializer;
    this.metrics = metrics;
    this.storedBytesRead = storedBytesRead;
    this.maps = maps;
    this.sizes = sizes;
    this.whileWaiting = whileWaiting;
    this.onExhausted = onExhausted;
  }

  @Override
  public boolean hasNext() {
    while (!records.hasNext()) {
      closeBlock();
      if (exhausted) {
        return false;
      }
      FetchedBlock block = nextBlock();
      if (block == null) {
        exhausted = true;
        reportRequestTime();
        onExhausted.run();
        return false;
      }
      openBlock(block);
    }
    return true;
  }

  @Override
  public Tuple2<Object, Object> next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more shuffle records");
    }
    metrics.incRecordsRead(1);
    return records.next();
  }

  /** Releases the block being read, if any. Idempotent. */
  void close() {
    closeBlock();
  }

  private FetchedBlock nextBlock() {
    long started = System.nanoTime();
    try {
      return source.take(whileWaiting);
    } catch (PartitionFetchException e) {
      throw Unchecked.rethrow(maps.fetchFailed(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      whileWaiting.run();
      throw Unchecked.rethrow(e);
    } finally {
      waitNanos += System.nanoTime() - started;
      long waitMillis = TimeUnit.NANOSECONDS.toMillis(waitNanos);
      metrics.incFetchWaitTime(waitMillis - reportedWaitMillis);
      reportedWaitMillis = waitMillis;
      reportRequestTime();
    }
  }

  private void openBlock(FetchedBlock block) {
    metrics.incRemoteBlocksFetched(1);
    long counted = sizes.ofStoredBlock(block.length(), block.uncompressedLength());
    if (streamsBegun.add(new MapPartition(block.taskAttemptId(), block.partition()))) {
      counted += sizes.perStream();
    }
    metrics.incRemoteBytesRead(counted);
    storedBytesRead.accept(block.length());
    ByteBuf bytes;
    try {
      bytes = decoder.decode(block);
    } catch (CorruptBlockException e) {
      throw Unchecked.rethrow(
          maps.fetchFailed(block.partition(), "corrupt shuffle block: " + e.getMessage(), e));
    } finally {
      source.consumed(block);
    }
    input = new ByteBufInputStream(bytes, true);
    stream = serializer.deserializeStream(input);
    records = stream.asKeyValueIterator();
  }

  /** Closes the block's stream (a serializer may hold pooled state) and releases its bytes. */
  private void closeBlock() {
    records = noRecords();
    DeserializationStream s = stream;
    ByteBufInputStream in = input;
    stream = null;
    input = null;
    try {
      if (s != null) {
        s.close();
      }
    } finally {
      if (in != null) {
        try {
          in.close();
        } catch (IOException e) {
          throw new IllegalStateException("closing an in-memory stream cannot fail", e);
        }
      }
    }
  }

  private record MapPartition(long taskAttemptId, int partition) {}

  @SuppressWarnings("unchecked")
  private static Iterator<Tuple2<Object, Object>> noRecords() {
    return (Iterator<Tuple2<Object, Object>>) (Iterator<?>) Iterator$.MODULE$.empty();
  }

  private void reportRequestTime() {
    long requestMillis = source.requestMillis();
    RemoteRequestTime.report(metrics, requestMillis - reportedRequestMillis);
    reportedRequestMillis = requestMillis;
  }
}
