package io.sluice.client.spark.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.collection.Iterator;

/**
 * The map side's per-partition buffers, with Spark's real serializers and memory manager: blocks
 * are cut at the block size, each one a stream its reader can decode alone, every record arrives
 * once and in order, and the buffers' memory is Spark's: granted by the task memory manager, given
 * back when it grants no more ("spilling means pushing"), when another consumer asks, and at the
 * end.
 */
class PartitionBuffersTest {
  private static final int PARTITIONS = 4;
  private static final int BLOCK_SIZE = 16 * 1024;
  private static final long MB = 1L << 20;

  /** Blocks handed on, per partition, as copies of the bytes (the sink may not keep the array). */
  private static final class Blocks implements BlockSink {
    final Map<Integer, List<byte[]>> byPartition = new HashMap<>();

    @Override
    public void block(int partition, byte[] bytes, int length) {
      byPartition
          .computeIfAbsent(partition, p -> new ArrayList<>())
          .add(Arrays.copyOf(bytes, length));
    }

    int count() {
      return byPartition.values().stream().mapToInt(List::size).sum();
    }
  }

  private static TaskMemoryManager memory(long heapBytes) {
    // No reserved memory, so that a small heap is allowed; the execution pool is 60% of it.
    SparkConf conf =
        new SparkConf(false)
            .set("spark.testing.memory", String.valueOf(heapBytes))
            .set("spark.testing.reservedMemory", "0");
    return new TaskMemoryManager(UnifiedMemoryManager.apply(conf, 1), 0);
  }

  private static Serializer kryo() {
    return new KryoSerializer(new SparkConf(false));
  }

  private static Serializer java() {
    return new JavaSerializer(new SparkConf(false));
  }

  /** Writes {@code n} records (key i, a 100-character value) round-robin over the partitions. */
  private static void writeRecords(PartitionBuffers buffers, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      buffers.write(i % PARTITIONS, i, value(i));
    }
  }

  private static String value(int i) {
    return String.format("%0100d", i);
  }

  /** Every record of every block of the partition, decoding each block as a stream of its own. */
  private static List<Tuple2<Object, Object>> decode(
      SerializerInstance serializer, List<byte[]> blocks) {
    List<Tuple2<Object, Object>> records = new ArrayList<>();
    for (byte[] block : blocks) {
      DeserializationStream in = serializer.deserializeStream(new ByteArrayInputStream(block));
      Iterator<Tuple2<Object, Object>> it = in.asKeyValueIterator();
      while (it.hasNext()) {
        records.add(it.next());
      }
      in.close();
    }
    return records;
  }

  private static void assertEveryRecordOnceInOrder(Serializer serializer, Blocks blocks, int n) {
    for (int p = 0; p < PARTITIONS; p++) {
      List<Tuple2<Object, Object>> records =
          decode(serializer.newInstance(), blocks.byPartition.getOrDefault(p, List.of()));
      List<Integer> keys = new ArrayList<>();
      for (Tuple2<Object, Object> r : records) {
        keys.add((Integer) r._1());
        assertEquals(value((Integer) r._1()), r._2());
      }
      List<Integer> expected = new ArrayList<>();
      for (int i = p; i < n; i += PARTITIONS) {
        expected.add(i);
      }
      assertEquals(expected, keys, "partition " + p);
    }
  }

  @Test
  void relocatableRecordsAreCutIntoSelfContainedBlocksAtTheBlockSize() throws Exception {
    Serializer serializer = kryo();
    assertTrue(serializer.supportsRelocationOfSerializedObjects());
    TaskMemoryManager memory = memory(256 * MB);
    Blocks blocks = new Blocks();
    PartitionBuffers buffers =
        new PartitionBuffers(
            memory, PARTITIONS, serializer.newInstance(), true, BLOCK_SIZE, blocks);

    writeRecords(buffers, 4_000);
    int cutWhileWriting = blocks.count();
    buffers.flushAll();
    buffers.finish();

    assertTrue(cutWhileWriting >= PARTITIONS, "~100 KiB per partition makes several blocks each");
    for (List<byte[]> partition : blocks.byPartition.values()) {
      for (byte[] block : partition) {
        // The record that takes a block past the size cuts it: it exceeds the size by one at most.
        assertTrue(block.length < BLOCK_SIZE + 200, "block of " + block.length + " bytes");
      }
    }
    assertEveryRecordOnceInOrder(serializer, blocks, 4_000);
    assertEquals(0, memory.getMemoryConsumptionForThisTask(), "all memory given back");
  }

  @Test
  void aSerializerThatCannotRelocateGetsAStreamPerBlock() throws Exception {
    Serializer serializer = java();
    assertFalse(serializer.supportsRelocationOfSerializedObjects());
    TaskMemoryManager memory = memory(256 * MB);
    Blocks blocks = new Blocks();
    PartitionBuffers buffers =
        new PartitionBuffers(
            memory, PARTITIONS, serializer.newInstance(), false, BLOCK_SIZE, blocks);

    writeRecords(buffers, 3_000);
    buffers.flushAll();
    buffers.finish();

    assertTrue(blocks.count() > PARTITIONS, "several blocks per partition");
    assertEveryRecordOnceInOrder(serializer, blocks, 3_000);
    assertEquals(0, memory.getMemoryConsumptionForThisTask());
  }

  @Test
  void theBuffersHoldWhatSparkGrantedAndCutBlocksWhenItGrantsNoMore() throws Exception {
    Serializer serializer = kryo();
    TaskMemoryManager memory = memory(8 * MB);
    // Another consumer that will not give anything back takes most of the task's share.
    MemoryConsumer hog =
        new MemoryConsumer(memory, memory.pageSizeBytes(), MemoryMode.ON_HEAP) {
          @Override
          public long spill(long size, MemoryConsumer trigger) {
            return 0;
          }
        };
    long available = memory.acquireExecutionMemory(Long.MAX_VALUE, hog);
    memory.releaseExecutionMemory(MB, hog);
    assertTrue(available > MB, "the hog holds " + available);

    Blocks blocks = new Blocks();
    // Blocks far larger than the memory left: only pushing early keeps the buffers within it.
    PartitionBuffers buffers =
        new PartitionBuffers(
            memory, PARTITIONS, serializer.newInstance(), true, 64 * (int) MB, blocks);
    writeRecords(buffers, 40_000);

    assertTrue(blocks.count() > 0, "blocks were cut before the block size to stay within memory");
    long held = memory.getMemoryConsumptionForThisTask() - (available - MB);
    assertTrue(held <= MB, "the buffers hold " + held + " bytes of a 1 MiB grant");
    buffers.flushAll();
    buffers.finish();
    assertEveryRecordOnceInOrder(serializer, blocks, 40_000);
    memory.releaseExecutionMemory(available - MB, hog);
    assertEquals(0, memory.getMemoryConsumptionForThisTask());
  }

  @Test
  void anotherConsumersRequestMakesTheBuffersPushAndGiveMemoryBack() throws Exception {
    Serializer serializer = kryo();
    TaskMemoryManager memory = memory(64 * MB);
    Blocks blocks = new Blocks();
    PartitionBuffers buffers =
        new PartitionBuffers(
            memory, PARTITIONS, serializer.newInstance(), true, 64 * (int) MB, blocks);
    writeRecords(buffers, 2_000);
    long before = memory.getMemoryConsumptionForThisTask();
    assertTrue(before > 0);
    assertEquals(0, blocks.count(), "nothing cut yet: the block size is far away");

    MemoryConsumer other =
        new MemoryConsumer(memory, memory.pageSizeBytes(), MemoryMode.ON_HEAP) {
          @Override
          public long spill(long size, MemoryConsumer trigger) {
            return 0;
          }
        };
    long released = buffers.spill(before, other);

    assertTrue(released > 0, "the buffers gave memory back");
    assertEquals(PARTITIONS, blocks.count(), "each partition's records became a block");
    buffers.flushAll();
    buffers.finish();
    assertEveryRecordOnceInOrder(serializer, blocks, 2_000);
    assertEquals(0, memory.getMemoryConsumptionForThisTask());
  }

  @Test
  void aFailedTaskDiscardsItsRecordsAndItsMemory() throws Exception {
    TaskMemoryManager memory = memory(64 * MB);
    Blocks blocks = new Blocks();
    PartitionBuffers buffers =
        new PartitionBuffers(memory, PARTITIONS, kryo().newInstance(), true, 64 * (int) MB, blocks);
    writeRecords(buffers, 2_000);
    assertTrue(memory.getMemoryConsumptionForThisTask() > 0);

    buffers.finish();
    buffers.flushAll();

    assertEquals(0, blocks.count(), "nothing of a failed task is pushed");
    assertEquals(0, memory.getMemoryConsumptionForThisTask());
  }

  @Test
  void aThreadsNextTaskWritesIntoTheArraysItsLastTaskLeftWithinItsOwnGrant() throws Exception {
    Serializer serializer = kryo();
    SpareArrays spares = SpareArrays.ofThisThread();
    while (spares.take() != null) {
      // Another test on this thread may have left some.
    }
    TaskMemoryManager first = memory(64 * MB);
    PartitionBuffers one =
        new PartitionBuffers(
            first, PARTITIONS, serializer.newInstance(), true, BLOCK_SIZE, new Blocks());
    for (int i = 0; i < 4_000; i++) {
      one.write(i % PARTITIONS, 1_000_000 + i, value(i)); // keys the second task never writes
    }
    one.flushAll();
    one.finish();
    long kept = spares.bytes();
    assertTrue(kept >= (long) PARTITIONS * BLOCK_SIZE, "the grown buffers were kept: " + kept);
    assertEquals(0, first.getMemoryConsumptionForThisTask());

    TaskMemoryManager second = memory(64 * MB);
    Blocks blocks = new Blocks();
    PartitionBuffers two =
        new PartitionBuffers(
            second, PARTITIONS, serializer.newInstance(), true, BLOCK_SIZE, blocks);
    writeRecords(two, 4_000);
    assertEquals(0, spares.bytes(), "the next task took every kept array");
    assertTrue(
        second.getMemoryConsumptionForThisTask() >= kept,
        "the reused arrays count against the task that holds them");
    two.flushAll();
    two.finish();
    assertEveryRecordOnceInOrder(serializer, blocks, 4_000); // nothing of the first task's
    assertEquals(0, second.getMemoryConsumptionForThisTask());
  }

  @Test
  void aThreadKeepsAtMostItsShareOfArraysBetweenTasks() throws Exception {
    SpareArrays spares = SpareArrays.ofThisThread();
    TaskMemoryManager memory = memory(512 * MB);
    int partitions = 20;
    int blockSize = 1 << 20;
    PartitionBuffers buffers =
        new PartitionBuffers(
            memory, partitions, kryo().newInstance(), true, blockSize, new Blocks());
    // About 1.5 MiB per partition: every buffer grows to 2 MiB, 40 MiB in all.
    for (int i = 0; i < partitions * 15_000; i++) {
      buffers.write(i % partitions, i, value(i));
    }
    buffers.flushAll();
    buffers.finish();
    assertTrue(spares.bytes() <= SpareArrays.MAX_BYTES, spares.bytes() + " bytes kept");
    assertTrue(spares.bytes() >= SpareArrays.MAX_BYTES / 2, spares.bytes() + " bytes kept");
    assertEquals(0, memory.getMemoryConsumptionForThisTask());
  }
}
