package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;
import java.util.Objects;

/**
 * Sent when a map task attempt ends: the ids of the blocks it wrote, per partition, so that readers
 * can tell complete output from the leftovers of failed or speculative attempts. Answered by a
 * {@link StatusResponse}.
 */
public final class CommitMapOutputRequest implements RequestMessage {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int mapIndex;
  private final long taskAttemptId;
  private final List<PartitionBlockIds> partitions;

  public CommitMapOutputRequest(long requestId, String appId, int shuffleId, int mapIndex,
      long taskAttemptId, List<PartitionBlockIds> partitions) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.mapIndex = mapIndex;
    this.taskAttemptId = taskAttemptId;
    this.partitions = List.copyOf(partitions);
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

  /** The block ids the attempt wrote, one entry per partition it wrote to. */
  public List<PartitionBlockIds> partitions() {
    return partitions;
  }

  @Override
  public int encodedLength() {
    int length = 8 + WireEncoding.stringLength(appId) + 4 + 4 + 8 + 4;
    for (PartitionBlockIds partition : partitions) {
      length += partition.encodedLength();
    }
    return length;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(mapIndex);
    out.writeLong(taskAttemptId);
    out.writeInt(partitions.size());
    for (PartitionBlockIds partition : partitions) {
      partition.encode(out);
    }
  }

  public static CommitMapOutputRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int mapIndex = in.readInt();
    long taskAttemptId = in.readLong();
    int count = WireEncoding.readCount(in, PartitionBlockIds.MIN_ENCODED_LENGTH, "partition");
    PartitionBlockIds[] partitions = new PartitionBlockIds[count];
    for (int i = 0; i < count; i++) {
      partitions[i] = PartitionBlockIds.decode(in);
    }
    return new CommitMapOutputRequest(
        requestId, appId, shuffleId, mapIndex, taskAttemptId, List.of(partitions));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CommitMapOutputRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && mapIndex == other.mapIndex
        && taskAttemptId == other.taskAttemptId
        && partitions.equals(other.partitions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, mapIndex, taskAttemptId, partitions);
  }

  @Override
  public String toString() {
    return "CommitMapOutputRequest[requestId=" + requestId + ", appId=" + appId + ", shuffleId="
        + shuffleId + ", mapIndex=" + mapIndex + ", taskAttemptId=" + taskAttemptId
        + ", partitions=" + partitions.size() + "]";
  }
}
