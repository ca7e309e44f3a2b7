package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Answer to a {@link HandshakeRequest} the server accepts: the protocol version both peers speak on
 * this connection (the client's, which the server supports) and the server's id. A client whose
 * version the server does not support gets a {@link StatusResponse} with
 * {@link StatusCode#VERSION_MISMATCH} naming both, and the connection is closed.
 */
public final class HandshakeResponse implements ResponseMessage {
  private final ResponseHeader header;
  private final int protocolVersion;
  private final String serverId;

  private HandshakeResponse(
      long requestId, StatusCode status, String errorMessage, int protocolVersion, String serverId) {
    this(new ResponseHeader(requestId, status, errorMessage), protocolVersion, serverId);
  }

  private HandshakeResponse(ResponseHeader header, int protocolVersion, String serverId) {
    this.header = header;
    this.protocolVersion = protocolVersion;
    this.serverId = WireEncoding.checkString("serverId", serverId);
  }

  public static HandshakeResponse ok(long requestId, int protocolVersion, String serverId) {
    return new HandshakeResponse(requestId, StatusCode.OK, "", protocolVersion, serverId);
  }

  @Override
  public MessageType type() {
    return MessageType.HANDSHAKE_RESPONSE;
  }

  @Override
  public long requestId() {
    return header.requestId();
  }

  @Override
  public StatusCode status() {
    return header.status();
  }

  @Override
  public String errorMessage() {
    return header.errorMessage();
  }

  public int protocolVersion() {
    return protocolVersion;
  }

  public String serverId() {
    return serverId;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + 4 + WireEncoding.stringLength(serverId);
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeInt(protocolVersion);
    WireEncoding.writeString(out, serverId);
  }

  public static HandshakeResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    int protocolVersion = in.readInt();
    String serverId = WireEncoding.readString(in);
    return new HandshakeResponse(header, protocolVersion, serverId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandshakeResponse other
        && header.equals(other.header)
        && protocolVersion == other.protocolVersion
        && serverId.equals(other.serverId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, protocolVersion, serverId);
  }

  @Override
  public String toString() {
    return "HandshakeResponse[" + header.describe() + ", protocolVersion=" + protocolVersion
        + ", serverId=" + serverId + "]";
  }
}
