package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Announces an application (to the coordinator or a server). Answered by a {@link StatusResponse}.
 */
public final class RegisterApplicationRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final String user;

  public RegisterApplicationRequest(long requestId, String appId, String user) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.user = WireEncoding.checkString("user", user);
  }

  @Override
  public MessageType type() {
    return MessageType.REGISTER_APPLICATION_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public String appId() {
    return appId;
  }

  /** The user the application runs as; administrative limits apply per user. */
  public String user() {
    return user;
  }

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + WireEncoding.stringLength(user);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    WireEncoding.writeString(out, user);
  }

  public static RegisterApplicationRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    String user = WireEncoding.readString(in);
    return new RegisterApplicationRequest(requestId, appId, user);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RegisterApplicationRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && user.equals(other.user);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, user);
  }

  @Override
  public String toString() {
    return "RegisterApplicationRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", user="
        + user
        + "]";
  }
}
