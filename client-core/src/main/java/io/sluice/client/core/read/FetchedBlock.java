package io.sluice.client.core.read;

import io.netty.buffer.ByteBuf;

/**
 * A block read from a server, kept for its partition and checked against its CRC32C, not yet
 * decompressed. Owns one reference to {@link #data()}; whoever holds the block hands it back to its
 * {@link BlockSource} exactly once.
 */
public final class FetchedBlock {
  private final int partition;
  private final long taskAttemptId;
  private final int sequence;
  private final int uncompressedLength;
  private final int length;
  private final ByteBuf data;

  /** Takes over the caller's reference to {@code data}. */
  public FetchedBlock(
      int partition, long taskAttemptId, int sequence, int uncompressedLength, ByteBuf data) {
    this.partition = partition;
    this.taskAttemptId = taskAttemptId;
    this.sequence = sequence;
    this.uncompressedLength = uncompressedLength;
    this.length = data.readableBytes();
    this.data = data;
  }

  public int partition() {
    return partition;
  }

  public long taskAttemptId() {
    return taskAttemptId;
  }

  public int sequence() {
    return sequence;
  }

  public int uncompressedLength() {
    return uncompressedLength;
  }

  /** Compressed bytes, also after release. */
  public int length() {
    return length;
  }

  /** The compressed bytes; no new reference. */
  public ByteBuf data() {
    return data;
  }

  /** Drops this block's reference; for sources that hand blocks out. */
  public void release() {
    data.release();
  }

  @Override
  public String toString() {
    return "block "
        + sequence
        + " of map attempt "
        + taskAttemptId
        + " (partition "
        + partition
        + ", "
        + length
        + " bytes)";
  }
}
