package io.sluice.client.spark.write;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Serializes a map task's records into one buffer per partition and cuts a block when a buffer
 * reaches {@code spark.sluice.block.size}. The buffers' memory is acquired from Spark's task memory
 * manager; when it grants no more, every buffer is cut and handed on ("spilling means pushing").
 *
 * <p>When the serializer allows relocating serialized records (Kryo with auto-reset, Spark SQL's
 * row serializer), one stream serializes every record and is flushed after each, into the buffer of
 * that record's partition: a block holds records of one stream, and no record is copied between
 * buffers on its way. Otherwise (Java serialization) every partition has its own stream, closed at
 * each block's end; either way a block is one readable stream.
 *
 * <p>The buffers' arrays come from, and at the task's end go back to, the task thread's {@link
 * SpareArrays}, so that the thread's next map task does not allocate them again.
 */
final class PartitionBuffers extends MemoryConsumer {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.Any();
  private static final int INITIAL_CAPACITY = 4 * 1024;
  private static final long ACQUIRE_STEP = 1L << 20;

  private final SerializerInstance serializer;
  private final boolean relocatable;
  private final int blockSize;
  private final BlockSink sink;
  private final SpareArrays spares = SpareArrays.ofThisThread();
  private final ByteArrayBuffer[] buffers;
  private final SerializationStream[] streams;
  private final RecordTarget target;
  private final SerializationStream sharedStream;
  private long bufferedCapacity;
  private long granted;

  PartitionBuffers(
      TaskMemoryManager memory,
      int numPartitions,
      SerializerInstance serializer,
      boolean relocatable,
      int blockSize,
      BlockSink sink) {
    super(memory, memory.pageSizeBytes(), MemoryMode.ON_HEAP);
    this.serializer = serializer;
    this.relocatable = relocatable;
    this.blockSize = blockSize;
    this.sink = sink;
    this.buffers = new ByteArrayBuffer[numPartitions];
    this.streams = relocatable ? null : new SerializationStream[numPartitions];
    this.target = relocatable ? new RecordTarget() : null;
    this.sharedStream = relocatable ? serializer.serializeStream(target) : null;
  }

  void write(int partition, Object key, Object value) throws IOException {
    ByteArrayBuffer buffer = buffers[partition];
    if (buffer == null) {
      byte[] spare = spares.take();
      buffer = spare != null ? new ByteArrayBuffer(spare) : new ByteArrayBuffer(INITIAL_CAPACITY);
      buffers[partition] = buffer;
      bufferedCapacity += buffer.capacity();
    }
    long before = buffer.capacity();
    if (relocatable) {
      // The flush leaves nothing in the stream's own buffer, so the next record may go elsewhere.
      // A record larger than that buffer reaches the partition's buffer in parts before the flush;
      // no block is cut in between, since cuts happen here after the flush or in spill(), which
      // runs when another consumer of this task asks for memory: on this thread, between records
      // (the records' iterator and its aggregation are those consumers).
      target.partition = buffer;
      sharedStream.writeKey(key, ANY);
      sharedStream.writeValue(value, ANY);
      sharedStream.flush();
    } else {
      SerializationStream stream = streams[partition];
      if (stream == null) {
        stream = serializer.serializeStream(buffer);
        streams[partition] = stream;
      }
      stream.writeKey(key, ANY);
      stream.writeValue(value, ANY);
    }
    bufferedCapacity += buffer.capacity() - before;
    if (buffer.size() >= blockSize) {
      cut(partition);
    }
    if (bufferedCapacity > granted) {
      reserve();
    }
  }

  /** Cuts every partition's remaining records into a final block. */
  void flushAll() throws IOException {
    for (int p = 0; p < buffers.length; p++) {
      if (buffers[p] != null) {
        cut(p);
      }
    }
  }

  /**
   * Ends the task's use of the buffers, after {@link #flushAll} (what they still hold is dropped,
   * as when the task failed): their arrays go to the thread's spares, their memory back to Spark.
   */
  void finish() {
    for (int p = 0; p < buffers.length; p++) {
      if (buffers[p] != null) {
        spares.give(buffers[p].array());
        buffers[p] = null;
      }
    }
    bufferedCapacity = 0;
    if (granted > 0) {
      freeMemory(granted);
      granted = 0;
    }
  }

  @Override
  public long spill(long size, MemoryConsumer trigger) throws IOException {
    if (trigger == this || bufferedCapacity == 0) {
      // Spilling into ourselves while serializing would re-enter; the write path handles it.
      return 0;
    }
    long before = granted;
    shrinkAll();
    return before - granted;
  }

  private void reserve() throws IOException {
    long wanted = Math.max(ACQUIRE_STEP, bufferedCapacity - granted);
    granted += acquireMemory(wanted);
    if (bufferedCapacity > granted) {
      shrinkAll();
    }
  }

  /** Cuts every buffer into a block and shrinks it, giving its memory back. */
  private void shrinkAll() throws IOException {
    for (int p = 0; p < buffers.length; p++) {
      if (buffers[p] != null && buffers[p].size() > 0) {
        cut(p);
      }
      if (buffers[p] != null) {
        bufferedCapacity -= buffers[p].capacity();
        buffers[p].resetAndShrink(INITIAL_CAPACITY);
        bufferedCapacity += buffers[p].capacity();
      }
    }
    long excess = granted - bufferedCapacity;
    if (excess > 0) {
      freeMemory(excess);
      granted -= excess;
    }
  }

  private void cut(int partition) throws IOException {
    ByteArrayBuffer buffer = buffers[partition];
    if (!relocatable && streams[partition] != null) {
      // Closing ends the stream inside this block (and flushes the serializer's own buffer).
      streams[partition].close();
      streams[partition] = null;
    }
    if (buffer.size() > 0) {
      try {
        sink.block(partition, buffer.array(), buffer.size());
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    }
    buffer.reset();
  }

  /** Passes what the shared stream flushes to the buffer of the record being written. */
  private static final class RecordTarget extends OutputStream {
    ByteArrayBuffer partition;

    @Override
    public void write(int b) {
      partition.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      partition.write(b, off, len);
    }
  }
}
