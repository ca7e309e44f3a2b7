package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * The first message on every connection: the range of protocol versions the client speaks and its
 * id. Answered by a {@link HandshakeResponse} naming the version chosen, or by a {@link
 * StatusResponse} with VERSION_MISMATCH when the ranges do not overlap. Any other message before it
 * is answered with HANDSHAKE_REQUIRED and the connection is closed.
 */
public final class HandshakeRequest implements RequestMessage {
  private final long requestId;
  private final int minVersion;
  private final int maxVersion;
  private final String clientId;

  public HandshakeRequest(long requestId, int minVersion, int maxVersion, String clientId) {
    this.requestId = requestId;
    this.minVersion = minVersion;
    this.maxVersion = maxVersion;
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

  /** The oldest protocol version the client speaks. */
  public int minVersion() {
    return minVersion;
  }

  /** The newest protocol version the client speaks. */
  public int maxVersion() {
    return maxVersion;
  }

  /** Who is connecting (an executor, a server replicating, a coordinator client); for logs. */
  public String clientId() {
    return clientId;
  }

  @Override
  public int encodedLength() {
    return 8 + 4 + 4 + WireEncoding.stringLength(clientId);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    out.writeInt(minVersion);
    out.writeInt(maxVersion);
    WireEncoding.writeString(out, clientId);
  }

  public static HandshakeRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    int minVersion = in.readInt();
    int maxVersion = in.readInt();
    String clientId = WireEncoding.readString(in);
    return new HandshakeRequest(requestId, minVersion, maxVersion, clientId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandshakeRequest other
        && requestId == other.requestId
        && minVersion == other.minVersion
        && maxVersion == other.maxVersion
        && clientId.equals(other.clientId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, minVersion, maxVersion, clientId);
  }

  @Override
  public String toString() {
    return "HandshakeRequest[requestId="
        + requestId
        + ", versions="
        + minVersion
        + ".."
        + maxVersion
        + ", clientId="
        + clientId
        + "]";
  }
}
