package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Answer to a {@link HandshakeRequest}: the server's protocol version and id. With
 * {@link StatusCode#VERSION_MISMATCH} the error message names both versions and
 * {@link #protocolVersion()} still carries the server's.
 */
public final class HandshakeResponse implements ResponseMessage {
  private final ResponseHeader header;
  private final int protocolVersion;
  private final String serverId;

  public HandshakeResponse(
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

  /** An error answer: protocol version 0, empty server id. */
  public static HandshakeResponse error(long requestId, StatusCode status, String message) {
    return new HandshakeResponse(ResponseHeader.error(requestId, status, message), 0, "");
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
