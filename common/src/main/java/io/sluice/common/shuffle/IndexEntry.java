package io.sluice.common.shuffle;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The index record of one stored block, {@value #SIZE} bytes big-endian, as a server writes it to a
 * partition's index file and sends it in a {@code FetchIndexResponse}: {@code int64 offset | int32
 * length | int32 uncompressedLength | int32 crc32c | int64 taskAttemptId | int32 sequence}.
 *
 * @param offset the block's logical offset in the partition's data, the same across all of the
 *     partition's files on a server
 * @param length bytes of the block as stored (compressed)
 * @param uncompressedLength bytes after decompression
 * @param crc32c CRC32C of the stored bytes, as the writer computed it
 * @param taskAttemptId the map task attempt that wrote the block
 * @param sequence the block's number among the blocks that attempt wrote to the partition
 */
public record IndexEntry(
    long offset, int length, int uncompressedLength, int crc32c, long taskAttemptId, int sequence) {

  public static final int SIZE = 32;

  public IndexEntry {
    if (offset < 0
        || length < 0
        || uncompressedLength < 0
        || sequence < 0
        || offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          "corrupt index entry: offset "
              + offset
              + ", length "
              + length
              + ", uncompressed length "
              + uncompressedLength
              + ", sequence "
              + sequence
              + " (none may be negative)");
    }
  }

  /** The offset just past the block. */
  public long end() {
    return offset + length;
  }

  /** Writes this entry at {@code buf}'s position, big-endian whatever the buffer's byte order. */
  public void writeTo(ByteBuffer buf) {
    ByteOrder order = buf.order();
    buf.order(ByteOrder.BIG_ENDIAN);
    try {
      buf.putLong(offset)
          .putInt(length)
          .putInt(uncompressedLength)
          .putInt(crc32c)
          .putLong(taskAttemptId)
          .putInt(sequence);
    } finally {
      buf.order(order);
    }
  }

  /**
   * Reads one entry from {@code buf}'s position and advances it by {@value #SIZE}.
   *
   * @throws IllegalArgumentException if fewer than {@value #SIZE} bytes remain or a field is out of
   *     range
   */
  public static IndexEntry readFrom(ByteBuffer buf) {
    if (buf.remaining() < SIZE) {
      throw new IllegalArgumentException(
          "an index entry needs " + SIZE + " bytes, only " + buf.remaining() + " remain");
    }
    ByteOrder order = buf.order();
    buf.order(ByteOrder.BIG_ENDIAN);
    try {
      return new IndexEntry(
          buf.getLong(), buf.getInt(), buf.getInt(), buf.getInt(), buf.getLong(), buf.getInt());
    } finally {
      buf.order(order);
    }
  }

  /**
   * The entries of {@code index}'s readable bytes, in order. The buffer's indexes do not move and
   * no reference is taken or released.
   *
   * @throws IOException if the bytes are not a whole number of entries or an entry is out of range
   */
  public static List<IndexEntry> decodeAll(ByteBuf index) throws IOException {
    int size = index.readableBytes();
    if (size % SIZE != 0) {
      throw new IOException(
          "corrupt index: " + size + " bytes is not a whole number of " + SIZE + "-byte entries");
    }
    List<IndexEntry> entries = new ArrayList<>(size / SIZE);
    for (int at = index.readerIndex(); at < index.writerIndex(); at += SIZE) {
      try {
        entries.add(
            new IndexEntry(
                index.getLong(at),
                index.getInt(at + 8),
                index.getInt(at + 12),
                index.getInt(at + 16),
                index.getLong(at + 20),
                index.getInt(at + 28)));
      } catch (IllegalArgumentException e) {
        throw new IOException("entry " + entries.size() + " of the index: " + e.getMessage(), e);
      }
    }
    return entries;
  }
}
