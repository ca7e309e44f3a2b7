package io.sluice.client.spark.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.client.core.codec.CodecKind;
import io.sluice.client.core.codec.CompressionCodec;
import io.sluice.client.core.codec.CompressionCodecs;
import io.sluice.client.core.read.BlockDecoder;
import io.sluice.client.core.read.BlockSource;
import io.sluice.client.core.read.FetchedBlock;
import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.client.spark.MapOutputLocation;
import io.sluice.client.spark.SortShuffleSizes;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.FetchFailed;
import org.apache.spark.SparkConf;
import org.apache.spark.executor.TempShuffleReadMetrics;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.shuffle.FetchFailedException;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.reflect.ClassTag$;

/** Records out of fetched blocks, with Spark's JavaSerializer and the LZ4 codec. */
class RecordIteratorTest {
  private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static final CompressionCodec LZ4 = CompressionCodecs.create(CodecKind.LZ4, 1);
  private static final int PARTITION = 4;
  private static final long A = 500;
  private static final long B = 612;

  private final SerializerInstance serializer =
      new JavaSerializer(new SparkConf(false)).newInstance();
  private final TempShuffleReadMetrics metrics = new TempShuffleReadMetrics();
  private final FakeSource source = new FakeSource();
  private final AtomicInteger exhausted = new AtomicInteger();
  private final AtomicLong storedBytes = new AtomicLong();

  /** Blocks and failures in order, as a fetcher would hand them out. */
  private static final class FakeSource implements BlockSource {
    final Deque<Object> items = new ArrayDeque<>();
    final List<FetchedBlock> consumed = new ArrayList<>();

    @Override
    public FetchedBlock take(Runnable whileWaiting) throws PartitionFetchException {
      Object item = items.poll();
      if (item instanceof PartitionFetchException e) {
        throw e;
      }
      return (FetchedBlock) item;
    }

    @Override
    public void consumed(FetchedBlock block) {
      consumed.add(block);
      block.release();
    }

    @Override
    public long requestMillis() {
      return 7;
    }
  }

  /** A block as the writer makes it: one serialize stream, compressed. */
  private FetchedBlock block(long attempt, int sequence, Object... keysAndValues) {
    return block(0, attempt, sequence, keysAndValues);
  }

  /** A block whose recorded uncompressed length is off by {@code lengthError}. */
  private FetchedBlock block(int lengthError, long attempt, int sequence, Object... keysAndValues) {
    ByteBuf raw = ALLOC.heapBuffer();
    SerializationStream out = serializer.serializeStream(new ByteBufOutputStream(raw));
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.writeKey(keysAndValues[i], ClassTag$.MODULE$.Any());
      out.writeValue(keysAndValues[i + 1], ClassTag$.MODULE$.Any());
    }
    out.close();
    int uncompressed = raw.readableBytes();
    ByteBuf compressed = ALLOC.directBuffer();
    LZ4.compress(raw, compressed);
    raw.release();
    return new FetchedBlock(PARTITION, attempt, sequence, uncompressed + lengthError, compressed);
  }

  private RecordIterator records() {
    CountedMaps maps =
        new CountedMaps.Builder(9)
            .add(CountedMapsTest.EXEC_1, A, 0, PARTITION, 100)
            .add(CountedMapsTest.EXEC_2, B, 1, PARTITION, 100)
            .build();
    return new RecordIterator(
        source,
        new BlockDecoder(LZ4, ALLOC),
        serializer,
        metrics,
        storedBytes::addAndGet,
        maps,
        new SortShuffleSizes(LZ4, false),
        () -> {},
        exhausted::incrementAndGet);
  }

  @Test
  void yieldsTheRecordsOfEveryBlockAndReportsReadMetrics() throws Exception {
    FetchedBlock first = block(A, 0, "a", 1, "b", 2, "c", 3);
    FetchedBlock second = block(B, 0, "d", 4, "e", 5);
    FetchedBlock third = block(B, 1, "f", 6);
    // Counted as Spark's lz4 stream would hold them: each one-chunk block with a 21-byte chunk
    // header instead of 8, and each map output's partition once with its 21-byte end mark.
    long bytes = first.length() + second.length() + third.length() + 3 * (21 - 8) + 2 * 21;
    source.items.add(first);
    source.items.add(second);
    source.items.add(third);

    RecordIterator it = records();
    List<String> seen = new ArrayList<>();
    while (it.hasNext()) {
      Tuple2<Object, Object> record = it.next();
      seen.add(record._1() + "=" + record._2());
    }

    assertEquals(List.of("a=1", "b=2", "c=3", "d=4", "e=5", "f=6"), seen);
    assertFalse(it.hasNext());
    assertEquals(1, exhausted.get(), "the end is reported once");
    assertEquals(6, metrics.recordsRead());
    assertEquals(3, metrics.remoteBlocksFetched());
    assertEquals(bytes, metrics.remoteBytesRead());
    assertEquals(
        first.length() + second.length() + third.length(),
        storedBytes.get(),
        "the Sluice tab counts the bytes as stored");
    assertEquals(7, remoteRequestMillis());
    assertEquals(List.of(first, second, third), source.consumed);
    assertEquals(0, first.data().refCnt());
  }

  @Test
  void aBlockThatDoesNotDecompressFailsTheFetchOfTheShuffle() {
    source.items.add(block(A, 0, "a", 1));
    FetchedBlock corrupt = block(5, B, 1, "b", 2);
    source.items.add(corrupt);

    RecordIterator it = records();
    assertEquals("a", it.next()._1());
    FetchFailedException e = assertThrows(FetchFailedException.class, it::hasNext);

    FetchFailed reason = (FetchFailed) e.toTaskFailedReason();
    assertEquals(MapOutputLocation.ofLostShuffle(9), reason.bmAddress());
    assertEquals(9, reason.shuffleId());
    assertEquals(-1, reason.mapIndex());
    assertEquals(PARTITION, reason.reduceId());
    assertTrue(e.getMessage().contains("corrupt shuffle block"), e.getMessage());
    assertEquals(0, corrupt.data().refCnt(), "the corrupt block is released");
  }

  @Test
  void aPartitionThatCannotBeReadFailsTheFetch() {
    source.items.add(new PartitionFetchException(PARTITION, "server lost", null));

    FetchFailedException e = assertThrows(FetchFailedException.class, () -> records().hasNext());

    FetchFailed reason = (FetchFailed) e.toTaskFailedReason();
    assertEquals(MapOutputLocation.ofLostShuffle(9), reason.bmAddress());
    assertEquals(PARTITION, reason.reduceId());
    assertEquals(0, exhausted.get());
  }

  @Test
  void closeInTheMiddleOfABlockReleasesIt() {
    FetchedBlock only = block(A, 0, "a", 1, "b", 2);
    source.items.add(only);

    RecordIterator it = records();
    assertEquals("a", it.next()._1());
    it.close();
    it.close();

    assertEquals(0, only.data().refCnt());
    assertEquals(1, metrics.recordsRead());
  }

  /**
   * The request time Spark's metrics hold, or 7 on Spark 3.3, which has no such metric (there
   * {@link RemoteRequestTime} reports nothing): this class's tests run on every Spark 3 line.
   */
  private long remoteRequestMillis() throws ReflectiveOperationException {
    Method requestTime;
    try {
      requestTime = TempShuffleReadMetrics.class.getMethod("remoteReqsDuration");
    } catch (NoSuchMethodException e) {
      assertTrue(
          org.apache.spark.package$.MODULE$.SPARK_VERSION().startsWith("3.3."),
          "only Spark 3.3 lacks the request time metric");
      return 7;
    }
    return (long) requestTime.invoke(metrics);
  }
}
