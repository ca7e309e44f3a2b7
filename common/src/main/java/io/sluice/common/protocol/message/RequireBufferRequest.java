package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Asks a server to reserve push memory before the data is sent, so that a full server refuses a
 * few bytes of request rather than megabytes of data. Answered by a {@link RequireBufferResponse}
 * whose ticket the following {@link PushDataRequest} carries.
 */
public final class RequireBufferRequest implements RequestMessage {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int bytes;

  public RequireBufferRequest(long requestId, String appId, int shuffleId, int bytes) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.bytes = bytes;
  }

  @Override
  public MessageType type() {
    return MessageType.REQUIRE_BUFFER_REQUEST;
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

  /** Bytes of push memory to reserve: the body size of the push that will use the ticket. */
  public int bytes() {
    return bytes;
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
    out.writeInt(bytes);
  }

  public static RequireBufferRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int bytes = in.readInt();
    return new RequireBufferRequest(requestId, appId, shuffleId, bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequireBufferRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && bytes == other.bytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, bytes);
  }

  @Override
  public String toString() {
    return "RequireBufferRequest[requestId=" + requestId + ", appId=" + appId + ", shuffleId="
        + shuffleId + ", bytes=" + bytes + "]";
  }
}
