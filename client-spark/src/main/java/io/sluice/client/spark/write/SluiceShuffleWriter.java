package io.sluice.client.spark.write;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.client.core.BlockCipher;
import io.sluice.client.core.codec.CompressionCodec;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.client.core.push.PartitionLocator;
import io.sluice.client.spark.MapOutputLocation;
import io.sluice.client.spark.SluiceClientContext;
import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.client.spark.SluiceShuffleHandle;
import io.sluice.client.spark.SortShuffleSizes;
import io.sluice.client.spark.SparkCompat;
import java.io.IOException;
import java.io.InterruptedIOException;
import org.apache.spark.Partitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import scala.Option;
import scala.Product2;
import scala.collection.Iterator;

/**
 * A map task's writer: partitions (and, when the dependency asks, combines) records, serializes
 * them into per-partition blocks, compresses each block and hands it to the shuffle protocol's
 * {@link MapOutputPusher}, which pushes, relocates and commits; then reports each partition's size
 * to Spark at the shuffle's {@link MapOutputLocation}, as its sort shuffle would have written it
 * ({@link SortShuffleSizes}).
 */
public final class SluiceShuffleWriter<K, V, C> extends ShuffleWriter<K, V> {
  private final SluiceShuffleHandle<K, V, C> handle;
  private final ShuffleDependency<K, V, C> dependency;
  private final long mapId;
  private final TaskContext context;
  private final ShuffleWriteMetricsReporter metrics;
  private final SluiceClientContext client;
  private final long[] partitionLengths;
  private final MapOutputPusher pusher;
  private final PartitionBuffers buffers;
  private final RowChecksums checksums;
  private final SortShuffleSizes sizes;

  /**
   * Where blocks are compressed, kept for the whole task: each block leaves it as a copy of its own
   * size (or sealed, which copies too), so that what the pusher holds is the block's size and not
   * the codec's worst case. Released in {@link #stop}.
   */
  private ByteBuf compressionBuffer;

  private MapStatus mapStatus;

  public SluiceShuffleWriter(
      SluiceShuffleHandle<K, V, C> handle,
      long mapId,
      TaskContext context,
      ShuffleWriteMetricsReporter metrics,
      SluiceClientContext client,
      PartitionLocator locator) {
    this.handle = handle;
    this.dependency = handle.dependency();
    this.mapId = mapId;
    this.context = context;
    this.metrics = metrics;
    this.client = client;
    int numPartitions = dependency.partitioner().numPartitions();
    this.partitionLengths = new long[numPartitions];
    this.pusher =
        new MapOutputPusher(
            client.connections(handle),
            client.allocator(),
            client.scheduler(),
            client.pushSettings(),
            locator,
            handle.appId(),
            handle.shuffleId(),
            numPartitions,
            context.taskAttemptId(),
            context::isInterrupted,
            handle.counters(),
            client.pushPace());
    this.checksums = SparkCompat.rowChecksums(dependency);
    this.sizes = client.sortShuffleSizes();
    Serializer serializer = dependency.serializer();
    this.buffers =
        new PartitionBuffers(
            context.taskMemoryManager(),
            numPartitions,
            serializer.newInstance(),
            serializer.supportsRelocationOfSerializedObjects(),
            (int) (long) client.conf().get(SluiceClientOptions.BLOCK_SIZE),
            this::encodeAndPush);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void write(Iterator<Product2<K, V>> records) throws IOException {
    Partitioner partitioner = dependency.partitioner();
    boolean combine = dependency.mapSideCombine();
    Iterator<Product2<K, V>> produced =
        combine && checksums.enabled()
            ? records.map(
                record -> {
                  checksums.update(partitioner.getPartition(record._1()), record._1(), record._2());
                  return record;
                })
            : records;
    Iterator<? extends Product2<K, ?>> input =
        combine
            ? (Iterator<? extends Product2<K, ?>>)
                (Iterator<?>) dependency.aggregator().get().combineValuesByKey(produced, context)
            : records;
    boolean checksumHere = !combine && checksums.enabled();
    long written = 0;
    while (input.hasNext()) {
      Product2<K, ?> record = input.next();
      K key = record._1();
      int partition = partitioner.getPartition(key);
      if (checksumHere) {
        checksums.update(partition, key, record._2());
      }
      buffers.write(partition, key, record._2());
      written++;
      if ((written & 0x3FFF) == 0 && context.isInterrupted()) {
        throw new InterruptedIOException("task killed");
      }
    }
    metrics.incRecordsWritten(written);
    buffers.flushAll();
    buffers.finish();
    releaseCompressionBuffer();
    long waitedForRoom = pusher.waitNanos();
    long finishStart = System.nanoTime();
    try {
      pusher.finishAndCommit(context.partitionId());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while committing");
    }
    // Write time is the time the task could not go on: waiting for room, then sending the last
    // batches and the commits and waiting for their answers.
    metrics.incWriteTime(waitedForRoom + System.nanoTime() - finishStart);
    for (int partition = 0; partition < partitionLengths.length; partition++) {
      if (partitionLengths[partition] > 0) {
        partitionLengths[partition] += sizes.perStream();
        metrics.incBytesWritten(sizes.perStream());
      }
    }
    mapStatus =
        SparkCompat.mapStatus(
            MapOutputLocation.ofMapOutput(
                handle.shuffleId(),
                pusher.wroteToFirstLocationsOnly(),
                client.pushPace().foundSlowRecently()),
            partitionLengths,
            mapId,
            checksums);
  }

  /** Compresses one block and hands it to the pusher. */
  private void encodeAndPush(int partition, byte[] bytes, int length) throws IOException {
    CompressionCodec codec = client.codec();
    ByteBuf compressed = compressionBuffer(codec.maxCompressedLength(length));
    codec.compress(Unpooled.wrappedBuffer(bytes, 0, length), compressed);
    // Spark is told the size its own shuffle would have written, so that it plans the same way.
    long size = sizes.ofBlock(compressed.readableBytes(), length);
    partitionLengths[partition] += size;
    metrics.incBytesWritten(size);
    BlockCipher cipher = client.blockCipher();
    ByteBuf block;
    if (cipher != null) {
      block = cipher.seal(compressed, client.allocator());
    } else {
      int n = compressed.readableBytes();
      block = client.allocator().directBuffer(n, n).writeBytes(compressed);
    }
    handle.counters().pushed(block.readableBytes());
    pusher.add(partition, block, length);
  }

  private void releaseCompressionBuffer() {
    if (compressionBuffer != null) {
      compressionBuffer.release();
      compressionBuffer = null;
    }
  }

  /** The compression buffer, empty and at least {@code capacity} large. */
  private ByteBuf compressionBuffer(int capacity) {
    if (compressionBuffer == null || compressionBuffer.capacity() < capacity) {
      releaseCompressionBuffer();
      compressionBuffer = client.allocator().directBuffer(capacity, capacity);
    }
    return compressionBuffer.clear();
  }

  @Override
  public Option<MapStatus> stop(boolean success) {
    releaseCompressionBuffer();
    if (!success || mapStatus == null) {
      buffers.finish();
      pusher.abort();
      return Option.empty();
    }
    return Option.apply(mapStatus);
  }

  @Override
  public long[] getPartitionLengths() {
    return partitionLengths;
  }
}
