package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;

/**
 * One block as the flusher hands it to storage. Storage reads {@link #data()}'s readable bytes
 * without moving its indexes and without taking a reference: the caller keeps ownership of the
 * buffer and frees it after {@link PartitionFiles#append} returns (or keeps it in memory when the
 * append fails).
 */
public interface FlushableBlock {

  /** The block's bytes as pushed (compressed), readable bytes only. */
  ByteBuf data();

  long taskAttemptId();

  /** The block's number among the blocks its map attempt wrote to the partition. */
  int sequence();

  /** Length of the block's bytes before compression. */
  int uncompressedLength();

  /** CRC32C of the block's bytes as stored, checked by the reader. */
  int crc32c();
}
