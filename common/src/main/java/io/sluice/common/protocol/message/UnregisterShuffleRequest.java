package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Spark has unregistered a shuffle: its data is deleted at once. Answered by a {@link
 * StatusResponse}.
 */
public final class UnregisterShuffleRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;

  public UnregisterShuffleRequest(long requestId, String appId, int shuffleId) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
  }

  @Override
  public MessageType type() {
    return MessageType.UNREGISTER_SHUFFLE_REQUEST;
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

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
  }

  public static UnregisterShuffleRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    return new UnregisterShuffleRequest(requestId, appId, shuffleId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UnregisterShuffleRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId);
  }

  @Override
  public String toString() {
    return "UnregisterShuffleRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + "]";
  }
}
