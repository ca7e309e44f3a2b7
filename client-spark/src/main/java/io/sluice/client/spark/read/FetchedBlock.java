package io.sluice.client.spark.read;

import io.netty.buffer.ByteBuf;

/**
 * A block read from a server and kept for its partition, not yet verified or decompressed. Owns one
 * reference to {@link #data()}; whoever holds the block releases it exactly once.
 */
final class FetchedBlock {
  private final int partition;
  private final long taskAttemptId;
  private final long blockId;
  private final int uncompressedLength;
  private final int crc32c;
  private final int length;
  private final ByteBuf data;

  /** Takes over the caller's reference to {@code data}. */
  FetchedBlock(int partition, long taskAttemptId, long blockId, int uncompressedLength, int crc32c,
      ByteBuf data) {
    this.partition = partition;
    this.taskAttemptId = taskAttemptId;
    this.blockId = blockId;
    this.uncompressedLength = uncompressedLength;
    this.crc32c = crc32c;
    this.length = data.readableBytes();
    this.data = data;
  }

  int partition() {
    return partition;
  }

  long taskAttemptId() {
    return taskAttemptId;
  }

  long blockId() {
    return blockId;
  }

  int uncompressedLength() {
    return uncompressedLength;
  }

  /** The CRC32C the writer computed over the compressed bytes. */
  int crc32c() {
    return crc32c;
  }

  /** Compressed bytes, also after release. */
  int length() {
    return length;
  }

  /** The compressed bytes; no new reference. */
  ByteBuf data() {
    return data;
  }

  void release() {
    data.release();
  }

  @Override
  public String toString() {
    return "block " + blockId + " of map attempt " + taskAttemptId + " (partition " + partition
        + ", " + length + " bytes)";
  }
}
