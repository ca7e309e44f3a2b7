package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * The ids of the blocks a map attempt wrote to one partition ({@link CommitMapOutputRequest}):
 * {@code int32 partitionId | long array blockIds}.
 */
public final class PartitionBlockIds {
  /** Encoded size with no block ids. */
  public static final int MIN_ENCODED_LENGTH = 4 + 4;

  private final int partitionId;
  private final long[] blockIds;

  /** Takes {@code blockIds} as is (no copy): the caller must not modify it afterwards. */
  public PartitionBlockIds(int partitionId, long[] blockIds) {
    this.partitionId = partitionId;
    this.blockIds = Objects.requireNonNull(blockIds, "blockIds");
  }

  public int partitionId() {
    return partitionId;
  }

  /** The block ids; the array is shared with this object, do not modify it. */
  public long[] blockIds() {
    return blockIds;
  }

  public int encodedLength() {
    return 4 + WireEncoding.longArrayLength(blockIds);
  }

  public void encode(ByteBuf out) {
    out.writeInt(partitionId);
    WireEncoding.writeLongArray(out, blockIds);
  }

  public static PartitionBlockIds decode(ByteBuf in) {
    int partitionId = in.readInt();
    long[] blockIds = WireEncoding.readLongArray(in);
    return new PartitionBlockIds(partitionId, blockIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionBlockIds other
        && partitionId == other.partitionId
        && Arrays.equals(blockIds, other.blockIds);
  }

  @Override
  public int hashCode() {
    return 31 * partitionId + Arrays.hashCode(blockIds);
  }

  @Override
  public String toString() {
    return "PartitionBlockIds[partitionId=" + partitionId + ", blockIds=" + blockIds.length + "]";
  }
}
