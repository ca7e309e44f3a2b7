package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * A reader asks how many blocks each of the map attempts it counts committed to a partition on this
 * server. Answered by a {@link GetShuffleResultResponse}.
 */
public final class GetShuffleResultRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;
  private final long[] taskAttemptIds;

  /** Takes {@code taskAttemptIds} as is (no copy): the caller must not modify it afterwards. */
  public GetShuffleResultRequest(
      long requestId, String appId, int shuffleId, int partitionId, long[] taskAttemptIds) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.taskAttemptIds = Objects.requireNonNull(taskAttemptIds, "taskAttemptIds");
  }

  @Override
  public MessageType type() {
    return MessageType.GET_SHUFFLE_RESULT_REQUEST;
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

  public int partitionId() {
    return partitionId;
  }

  /**
   * The map attempts the reader counts; the array is shared with this message, do not modify it.
   */
  public long[] taskAttemptIds() {
    return taskAttemptIds;
  }

  @Override
  public int encodedLength() {
    return 8
        + WireEncoding.stringLength(appId)
        + 4
        + 4
        + WireEncoding.longArrayLength(taskAttemptIds);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(partitionId);
    WireEncoding.writeLongArray(out, taskAttemptIds);
  }

  public static GetShuffleResultRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    long[] taskAttemptIds = WireEncoding.readLongArray(in);
    return new GetShuffleResultRequest(requestId, appId, shuffleId, partitionId, taskAttemptIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GetShuffleResultRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId
        && Arrays.equals(taskAttemptIds, other.taskAttemptIds);
  }

  @Override
  public int hashCode() {
    return 31 * Objects.hash(requestId, appId, shuffleId, partitionId)
        + Arrays.hashCode(taskAttemptIds);
  }

  @Override
  public String toString() {
    return "GetShuffleResultRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitionId="
        + partitionId
        + ", taskAttemptIds="
        + taskAttemptIds.length
        + "]";
  }
}
