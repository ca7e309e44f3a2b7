package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.shuffle.IndexEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Blocks with contents derived from a test's number for them, and ways to read stored data back.
 * Block number {@code n} is block {@link #sequenceOf sequence} {@code n % 10} of map attempt {@code
 * n / 10}, so that its (taskAttemptId, sequence) identity gives the number back.
 */
public final class Blocks {
  private Blocks() {}

  /** The map attempt that wrote block number {@code blockId}. */
  static long attemptOf(long blockId) {
    return blockId / 10;
  }

  /** Block number {@code blockId}'s sequence among its attempt's blocks. */
  static int sequenceOf(long blockId) {
    return (int) (blockId % 10);
  }

  /** The test's number of the block an index entry describes. */
  static long idOf(IndexEntry entry) {
    return entry.taskAttemptId() * 10 + entry.sequence();
  }

  /** The bytes of block {@code blockId}: a length and contents that follow from the id alone. */
  static byte[] contents(long blockId) {
    Random random = new Random(blockId * 31 + 7);
    byte[] bytes = new byte[1 + random.nextInt(20_000)];
    random.nextBytes(bytes);
    return bytes;
  }

  /**
   * Blocks {@code firstId .. firstId + count - 1}, held in pooled direct, heap and composite
   * buffers (so that gathering writes see several NIO buffers per block). Release with {@link
   * #release}.
   */
  static List<TestBlock> make(long firstId, int count) {
    List<TestBlock> blocks = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long id = firstId + i;
      byte[] bytes = contents(id);
      blocks.add(
          new TestBlock(
              buffer(bytes, i % 3),
              attemptOf(id),
              sequenceOf(id),
              bytes.length * 3,
              Crc32c.of(bytes)));
    }
    return blocks;
  }

  private static ByteBuf buffer(byte[] bytes, int kind) {
    switch (kind) {
      case 0:
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
      case 1:
        // A reader index past 0, to check that only readable bytes are stored.
        ByteBuf heap = Unpooled.buffer(bytes.length + 5).writeZero(5).writeBytes(bytes);
        return heap.skipBytes(5);
      default:
        int half = bytes.length / 2;
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        composite.addComponent(true, Unpooled.directBuffer(half).writeBytes(bytes, 0, half));
        composite.addComponent(
            true,
            Unpooled.directBuffer(bytes.length - half)
                .writeBytes(bytes, half, bytes.length - half));
        return composite;
    }
  }

  /** Appends blocks {@code firstId ..} ({@link #make}) to {@code partition}, then frees them. */
  static void append(PartitionFiles partition, long firstId, int count) throws Exception {
    List<TestBlock> blocks = make(firstId, count);
    try {
      partition.append(blocks);
    } finally {
      release(blocks);
    }
  }

  /**
   * As {@link #append}, on a flush thread of {@code disk} (only those have a staging buffer for
   * writes around the page cache), with {@code bypassPageCache}.
   */
  static void appendOnFlushThread(
      PartitionFiles partition, LocalDisk disk, long firstId, int count, boolean bypassPageCache)
      throws Exception {
    appendOnFlushThread(partition, disk, make(firstId, count), bypassPageCache);
  }

  /** Appends {@code blocks} on one of {@code disk}'s flush threads, then releases them. */
  static void appendOnFlushThread(
      PartitionFiles partition, LocalDisk disk, List<TestBlock> blocks, boolean bypassPageCache)
      throws Exception {
    try {
      CompletableFuture.supplyAsync(
              () -> {
                try {
                  return partition.append(blocks, bypassPageCache);
                } catch (StorageUnavailableException e) {
                  throw new CompletionException(e);
                }
              },
              disk.flushExecutor())
          .get(30, TimeUnit.SECONDS);
    } finally {
      release(blocks);
    }
  }

  /** Whether files in {@code dir} can be opened with O_DIRECT here (not on older tmpfs). */
  public static boolean directIoWorks(Path dir) {
    Path probe = dir.resolve(".direct-probe");
    try {
      Files.createDirectories(dir);
      FileIo.DEFAULT.openForDirectWrite(probe).close();
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException ignored) {
        // The test's own temporary directory.
      }
    }
  }

  static void release(List<TestBlock> blocks) {
    for (TestBlock block : blocks) {
      block.data().release();
    }
  }

  /** The concatenated contents of blocks {@code firstId .. firstId + count - 1}. */
  static byte[] expected(long firstId, int count) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (long id = firstId; id < firstId + count; id++) {
      out.writeBytes(contents(id));
    }
    return out.toByteArray();
  }

  /**
   * The length of a data file whose last append went around the page cache and ended at {@code
   * end}: its last partial unit stays padded with zeros.
   */
  static long alignedUp(long end) {
    return (end + DirectAppender.ALIGNMENT - 1)
        / DirectAppender.ALIGNMENT
        * DirectAppender.ALIGNMENT;
  }

  static long totalLength(long firstId, int count) {
    long total = 0;
    for (long id = firstId; id < firstId + count; id++) {
      total += contents(id).length;
    }
    return total;
  }

  /** All bytes of {@code buffer} through its input stream; releases the buffer. */
  static byte[] readStream(ManagedBuffer buffer) throws IOException {
    try (InputStream in = buffer.createInputStream()) {
      return in.readAllBytes();
    } finally {
      buffer.release();
    }
  }

  /** All bytes of a file segment the way Netty sends it: a {@link DefaultFileRegion}. */
  static byte[] readRegion(ManagedBuffer buffer) throws IOException {
    FileSegmentManagedBuffer segment = (FileSegmentManagedBuffer) buffer;
    DefaultFileRegion region = (DefaultFileRegion) segment.convertToNetty();
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      WritableByteChannel target = Channels.newChannel(out);
      long done = 0;
      while (done < region.count()) {
        done += region.transferTo(target, done);
      }
      assertEquals(0, segment.refCnt(), "the region took over the segment's reference");
      return out.toByteArray();
    } finally {
      region.release();
    }
  }

  /** Reads the partition's whole data, following generations, through input streams. */
  static byte[] readAllData(PartitionFiles partition) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long offset = 0;
    long length = partition.dataLength();
    while (offset < length) {
      ManagedBuffer segment =
          partition.data(offset, (int) Math.min(Integer.MAX_VALUE, length - offset));
      long size = segment.size();
      out.writeBytes(readStream(segment));
      offset += size;
    }
    return out.toByteArray();
  }

  /** The index entries in {@code index}; releases it. */
  static List<IndexEntry> decodeIndex(ManagedBuffer index) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(readStream(index));
    assertEquals(0, bytes.remaining() % IndexEntry.SIZE, "index length is a multiple of the entry");
    List<IndexEntry> entries = new ArrayList<>();
    while (bytes.hasRemaining()) {
      entries.add(IndexEntry.readFrom(bytes));
    }
    return entries;
  }

  /**
   * Checks that {@code entries} describe blocks {@code firstId ..} stored back to back from logical
   * offset {@code firstOffset}, and that each entry's bytes read back as the block's contents.
   */
  static void assertEntries(
      PartitionFiles partition, List<IndexEntry> entries, long firstId, long firstOffset)
      throws IOException {
    long offset = firstOffset;
    for (int i = 0; i < entries.size(); i++) {
      IndexEntry entry = entries.get(i);
      long id = firstId + i;
      byte[] bytes = contents(id);
      assertEquals(
          new IndexEntry(
              offset,
              bytes.length,
              bytes.length * 3,
              Crc32c.of(bytes),
              attemptOf(id),
              sequenceOf(id)),
          entry,
          "entry " + i);
      assertArrayEquals(
          bytes,
          readStream(partition.data(entry.offset(), entry.length())),
          "bytes of block " + id);
      offset += bytes.length;
    }
  }
}
