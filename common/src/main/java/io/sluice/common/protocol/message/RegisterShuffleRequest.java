package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * Tells a server which partitions of a shuffle it holds, before any data is pushed. Answered by a
 * {@link StatusResponse}.
 */
public final class RegisterShuffleRequest implements RequestMessage {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int numPartitions;
  private final int[] partitionIds;

  /** Takes {@code partitionIds} as is (no copy): the caller must not modify it afterwards. */
  public RegisterShuffleRequest(
      long requestId, String appId, int shuffleId, int numPartitions, int[] partitionIds) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.numPartitions = numPartitions;
    this.partitionIds = Objects.requireNonNull(partitionIds, "partitionIds");
  }

  @Override
  public MessageType type() {
    return MessageType.REGISTER_SHUFFLE_REQUEST;
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

  /** Number of partitions of the whole shuffle (on all servers). */
  public int numPartitions() {
    return numPartitions;
  }

  /** The partitions this server holds; the array is shared with this message, do not modify it. */
  public int[] partitionIds() {
    return partitionIds;
  }

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4 + 4 + WireEncoding.intArrayLength(partitionIds);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(numPartitions);
    WireEncoding.writeIntArray(out, partitionIds);
  }

  public static RegisterShuffleRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int numPartitions = in.readInt();
    int[] partitionIds = WireEncoding.readIntArray(in);
    return new RegisterShuffleRequest(requestId, appId, shuffleId, numPartitions, partitionIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RegisterShuffleRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && numPartitions == other.numPartitions
        && Arrays.equals(partitionIds, other.partitionIds);
  }

  @Override
  public int hashCode() {
    return 31 * Objects.hash(requestId, appId, shuffleId, numPartitions)
        + Arrays.hashCode(partitionIds);
  }

  @Override
  public String toString() {
    return "RegisterShuffleRequest[requestId=" + requestId + ", appId=" + appId + ", shuffleId="
        + shuffleId + ", numPartitions=" + numPartitions + ", partitionIds=" + partitionIds.length
        + "]";
  }
}
