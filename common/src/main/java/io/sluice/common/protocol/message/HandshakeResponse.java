package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Answer to a {@link HandshakeRequest} the server accepts: the protocol version both peers speak on
 * this connection (the client's, which the server supports), the server's id and, from protocol 5,
 * the largest frame the server accepts, so that the client refuses a larger request itself instead
 * of sending it (the server would answer FRAME_TOO_LARGE and close the connection, failing every
 * other request on it). A client whose version the server does not support gets a {@link
 * StatusResponse} with {@link StatusCode#VERSION_MISMATCH} naming both, and the connection is
 * closed.
 */
public final class HandshakeResponse implements ResponseMessage {
  private final ResponseHeader header;
  private final int protocolVersion;
  private final String serverId;
  private final int maxFrameSize;

  private HandshakeResponse(
      ResponseHeader header, int protocolVersion, String serverId, int maxFrameSize) {
    this.header = header;
    this.protocolVersion = protocolVersion;
    this.serverId = WireEncoding.checkString("serverId", serverId);
    this.maxFrameSize = protocolVersion >= SINCE_VERSION_FRAME_LIMIT ? maxFrameSize : 0;
  }

  /** The first protocol version whose answer carries the server's frame limit. */
  public static final int SINCE_VERSION_FRAME_LIMIT = 5;

  /**
   * @param maxFrameSize the largest frame the server accepts; carried only when {@code
   *     protocolVersion} is 5 or later (the layout of older versions has no room for it)
   */
  public static HandshakeResponse ok(
      long requestId, int protocolVersion, String serverId, int maxFrameSize) {
    if (protocolVersion >= SINCE_VERSION_FRAME_LIMIT && maxFrameSize < 1) {
      throw new IllegalArgumentException(
          "a server's maximum frame size must be positive, got " + maxFrameSize);
    }
    return new HandshakeResponse(
        new ResponseHeader(requestId, StatusCode.OK, ""), protocolVersion, serverId, maxFrameSize);
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

  /** The largest frame the server accepts; 0 when it did not say (a protocol before 5). */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength()
        + 4
        + WireEncoding.stringLength(serverId)
        + (protocolVersion >= SINCE_VERSION_FRAME_LIMIT ? 4 : 0);
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeInt(protocolVersion);
    WireEncoding.writeString(out, serverId);
    if (protocolVersion >= SINCE_VERSION_FRAME_LIMIT) {
      out.writeInt(maxFrameSize);
    }
  }

  public static HandshakeResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    int protocolVersion = in.readInt();
    String serverId = WireEncoding.readString(in);
    int maxFrameSize = 0;
    if (protocolVersion >= SINCE_VERSION_FRAME_LIMIT) {
      maxFrameSize = in.readInt();
      if (maxFrameSize < 1) {
        throw new CorruptFrameException(
            "a server's maximum frame size must be positive, got " + maxFrameSize);
      }
    }
    return new HandshakeResponse(header, protocolVersion, serverId, maxFrameSize);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandshakeResponse other
        && header.equals(other.header)
        && protocolVersion == other.protocolVersion
        && serverId.equals(other.serverId)
        && maxFrameSize == other.maxFrameSize;
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, protocolVersion, serverId, maxFrameSize);
  }

  @Override
  public String toString() {
    return "HandshakeResponse["
        + header.describe()
        + ", protocolVersion="
        + protocolVersion
        + ", serverId="
        + serverId
        + ", maxFrameSize="
        + maxFrameSize
        + "]";
  }
}
