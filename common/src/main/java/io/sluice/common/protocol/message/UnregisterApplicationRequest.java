package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * The application has ended: its shuffles and their data can be deleted now. Answered by a {@link
 * StatusResponse}.
 */
public final class UnregisterApplicationRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;

  public UnregisterApplicationRequest(long requestId, String appId) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
  }

  @Override
  public MessageType type() {
    return MessageType.UNREGISTER_APPLICATION_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public String appId() {
    return appId;
  }

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
  }

  public static UnregisterApplicationRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    return new UnregisterApplicationRequest(requestId, appId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UnregisterApplicationRequest other
        && requestId == other.requestId
        && appId.equals(other.appId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId);
  }

  @Override
  public String toString() {
    return "UnregisterApplicationRequest[requestId=" + requestId + ", appId=" + appId + "]";
  }
}
