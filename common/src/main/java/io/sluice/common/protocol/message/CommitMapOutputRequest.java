package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Sent when a map task attempt has written everything and every push was acknowledged: how many
 * blocks it wrote to each partition this server holds. Its blocks of a partition are numbered
 * {@code 0 .. blockCount - 1}, so the count is all a reader needs to tell the attempt's complete
 * output from a failed or speculative attempt's leftovers. Encoded as {@code int32 count} followed
 * by {@code count x (int32 partitionId | int32 blockCount)}. Answered by a {@link StatusResponse}.
 */
public final class CommitMapOutputRequest implements ApplicationRequest {
  private static final int ENTRY_LENGTH = 8;

  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int mapIndex;
  private final long taskAttemptId;
  private final int[] partitionIds;
  private final int[] blockCounts;

  /**
   * Takes the arrays as they are (no copy): the caller must not modify them afterwards.
   *
   * @throws IllegalArgumentException if the arrays differ in length or a count is below 1
   */
  public CommitMapOutputRequest(
      long requestId,
      String appId,
      int shuffleId,
      int mapIndex,
      long taskAttemptId,
      int[] partitionIds,
      int[] blockCounts) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.mapIndex = mapIndex;
    this.taskAttemptId = taskAttemptId;
    this.partitionIds = Objects.requireNonNull(partitionIds, "partitionIds");
    this.blockCounts = Objects.requireNonNull(blockCounts, "blockCounts");
    if (partitionIds.length != blockCounts.length) {
      throw new IllegalArgumentException(
          partitionIds.length + " partitions but " + blockCounts.length + " block counts");
    }
    for (int count : blockCounts) {
      if (count < 1) {
        throw new IllegalArgumentException(
            "a committed partition has at least one block, got " + count);
      }
    }
  }

  @Override
  public MessageType type() {
    return MessageType.COMMIT_MAP_OUTPUT_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public String appId() {
    return appId;
  }

  public int shuffleId() {
    return shuffleId;
  }

  public int mapIndex() {
    return mapIndex;
  }

  public long taskAttemptId() {
    return taskAttemptId;
  }

  /** The partitions the attempt wrote to; shared with this message, do not modify. */
  public int[] partitionIds() {
    return partitionIds;
  }

  /** Blocks written to each of {@link #partitionIds()}; shared with this message, do not modify. */
  public int[] blockCounts() {
    return blockCounts;
  }

  @Override
  public int encodedLength() {
    return 8
        + WireEncoding.stringLength(appId)
        + 4
        + 4
        + 8
        + 4
        + ENTRY_LENGTH * partitionIds.length;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(mapIndex);
    out.writeLong(taskAttemptId);
    out.writeInt(partitionIds.length);
    ByteBuffer entries = ByteBuffer.allocate(ENTRY_LENGTH * partitionIds.length);
    for (int i = 0; i < partitionIds.length; i++) {
      entries.putInt(partitionIds[i]).putInt(blockCounts[i]);
    }
    out.writeBytes(entries.flip());
  }

  public static CommitMapOutputRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int mapIndex = in.readInt();
    long taskAttemptId = in.readLong();
    int count = WireEncoding.readCount(in, ENTRY_LENGTH, "partition");
    int[] partitionIds = new int[count];
    int[] blockCounts = new int[count];
    ByteBuffer entries = WireEncoding.readBlock(in, ENTRY_LENGTH * count);
    for (int i = 0; i < count; i++) {
      partitionIds[i] = entries.getInt();
      blockCounts[i] = entries.getInt();
      if (blockCounts[i] < 1) {
        throw new CorruptFrameException(
            "block count "
                + blockCounts[i]
                + " for partition "
                + partitionIds[i]
                + "; a committed partition has at least one block");
      }
    }
    return new CommitMapOutputRequest(
        requestId, appId, shuffleId, mapIndex, taskAttemptId, partitionIds, blockCounts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CommitMapOutputRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && mapIndex == other.mapIndex
        && taskAttemptId == other.taskAttemptId
        && Arrays.equals(partitionIds, other.partitionIds)
        && Arrays.equals(blockCounts, other.blockCounts);
  }

  @Override
  public int hashCode() {
    return 31
            * (31 * Objects.hash(requestId, appId, shuffleId, mapIndex, taskAttemptId)
                + Arrays.hashCode(partitionIds))
        + Arrays.hashCode(blockCounts);
  }

  @Override
  public String toString() {
    return "CommitMapOutputRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", mapIndex="
        + mapIndex
        + ", taskAttemptId="
        + taskAttemptId
        + ", partitions="
        + partitionIds.length
        + "]";
  }
}
