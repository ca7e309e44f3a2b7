package io.sluice.client.spark.read;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the body of a {@code FetchIndexResponse}: a partition's index, entries back to back.
 * The layout is defined by docs/protocol.md and by the server's {@code IndexEntry}; client-spark
 * does not depend on the server module, so it decodes the layout itself: {@value #ENTRY_SIZE}
 * bytes per entry, big-endian,
 * {@code int64 offset | int32 length | int32 uncompressedLength | int32 crc32c | int64 blockId |
 * int64 taskAttemptId}.
 */
final class IndexDecoder {
  static final int ENTRY_SIZE = 36;

  private IndexDecoder() {}

  /**
   * The entries of {@code index}'s readable bytes, in index order. The buffer's indexes do not move
   * and no reference is taken or released.
   *
   * @throws IOException if the bytes are not a whole number of entries, or an entry has a negative
   *     offset or length or ends past the largest possible offset
   */
  static List<IndexedBlock> decode(ByteBuf index) throws IOException {
    int size = index.readableBytes();
    if (size % ENTRY_SIZE != 0) {
      throw new IOException("corrupt index: " + size + " bytes is not a whole number of "
          + ENTRY_SIZE + "-byte entries");
    }
    List<IndexedBlock> entries = new ArrayList<>(size / ENTRY_SIZE);
    for (int at = index.readerIndex(); at < index.writerIndex(); at += ENTRY_SIZE) {
      long offset = index.getLong(at);
      int length = index.getInt(at + 8);
      int uncompressedLength = index.getInt(at + 12);
      int crc32c = index.getInt(at + 16);
      long blockId = index.getLong(at + 20);
      long taskAttemptId = index.getLong(at + 28);
      if (offset < 0 || length < 0 || uncompressedLength < 0 || offset > Long.MAX_VALUE - length) {
        throw new IOException("corrupt index entry " + entries.size() + ": offset " + offset
            + ", length " + length + ", uncompressed length " + uncompressedLength);
      }
      entries.add(
          new IndexedBlock(offset, length, uncompressedLength, crc32c, blockId, taskAttemptId));
    }
    return entries;
  }
}
