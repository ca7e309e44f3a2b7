package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Tells a server that a shuffle exists and how many partitions it has, before any of its data is
 * pushed there (as a primary or a replica). Idempotent. Answered by a {@link StatusResponse}.
 */
public final class RegisterShuffleRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int numPartitions;

  public RegisterShuffleRequest(long requestId, String appId, int shuffleId, int numPartitions) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.numPartitions = numPartitions;
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

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4 + 4;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(numPartitions);
  }

  public static RegisterShuffleRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int numPartitions = in.readInt();
    return new RegisterShuffleRequest(requestId, appId, shuffleId, numPartitions);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RegisterShuffleRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && numPartitions == other.numPartitions;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, numPartitions);
  }

  @Override
  public String toString() {
    return "RegisterShuffleRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", numPartitions="
        + numPartitions
        + "]";
  }
}
