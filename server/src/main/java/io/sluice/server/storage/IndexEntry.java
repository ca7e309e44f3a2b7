package io.sluice.server.storage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The index record of one stored block, {@value #SIZE} bytes big-endian on disk:
 * {@code int64 offset | int32 length | int32 uncompressedLength | int32 crc32c | int64 blockId |
 * int64 taskAttemptId}. {@code offset} is the block's logical offset in the partition's data, the
 * same across all of a partition's files (see {@link PartitionFiles}).
 */
public record IndexEntry(
    long offset, int length, int uncompressedLength, int crc32c, long blockId, long taskAttemptId) {

  public static final int SIZE = 36;

  public IndexEntry {
    if (offset < 0 || length < 0 || uncompressedLength < 0) {
      throw new IllegalArgumentException("corrupt index entry: offset " + offset + ", length "
          + length + ", uncompressed length " + uncompressedLength + " (none may be negative)");
    }
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
          .putLong(blockId)
          .putLong(taskAttemptId);
    } finally {
      buf.order(order);
    }
  }

  /**
   * Reads one entry from {@code buf}'s position and advances it by {@value #SIZE}.
   *
   * @throws IllegalArgumentException if fewer than {@value #SIZE} bytes remain or the entry has a
   *     negative offset or length
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
          buf.getLong(), buf.getInt(), buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong());
    } finally {
      buf.order(order);
    }
  }
}
