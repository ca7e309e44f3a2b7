package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * The first message on every connection: the client's protocol version and id. Answered by a
 * {@link HandshakeResponse}; any other message before it is answered with HANDSHAKE_REQUIRED.
 */
public final class HandshakeRequest implements RequestMessage {
  private final long requestId;
  private final int protocolVersion;
  private final String clientId;

  public HandshakeRequest(long requestId, int protocolVersion, String clientId) {
    this.requestId = requestId;
    this.protocolVersion = protocolVersion;
    this.clientId = WireEncoding.checkString("clientId", clientId);
  }

  @Override
  public MessageType type() {
    return MessageType.HANDSHAKE_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public int protocolVersion() {
    return protocolVersion;
  }

  /** Who is connecting (an executor, a server replicating, a coordinator client); for logs. */
  public String clientId() {
    return clientId;
  }

  @Override
  public int encodedLength() {
    return 8 + 4 + WireEncoding.stringLength(clientId);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    out.writeInt(protocolVersion);
    WireEncoding.writeString(out, clientId);
  }

  public static HandshakeRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    int protocolVersion = in.readInt();
    String clientId = WireEncoding.readString(in);
    return new HandshakeRequest(requestId, protocolVersion, clientId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandshakeRequest other
        && requestId == other.requestId
        && protocolVersion == other.protocolVersion
        && clientId.equals(other.clientId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, protocolVersion, clientId);
  }

  @Override
  public String toString() {
    return "HandshakeRequest[requestId=" + requestId + ", protocolVersion=" + protocolVersion
        + ", clientId=" + clientId + "]";
  }
}
