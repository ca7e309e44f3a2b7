package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * Protocol 4. Starts authentication right after the handshake: the role the client claims, the
 * application it acts for ({@code ""} for {@link AuthRole#CLUSTER}) and a fresh random nonce.
 * Answered by an {@link AuthChallengeResponse} carrying the server's nonce, or by a {@link
 * StatusResponse} (UNAUTHENTICATED, UNKNOWN_APPLICATION) after which the server closes the
 * connection.
 */
public final class AuthRequest implements RequestMessage {
  public static final int NONCE_BYTES = 16;

  private final long requestId;
  private final AuthRole role;
  private final String appId;
  private final byte[] clientNonce;

  public AuthRequest(long requestId, AuthRole role, String appId, byte[] clientNonce) {
    this.requestId = requestId;
    this.role = Objects.requireNonNull(role, "role");
    this.appId = WireEncoding.checkString("appId", appId);
    this.clientNonce = WireEncoding.checkFixedBytes("clientNonce", clientNonce, NONCE_BYTES);
  }

  @Override
  public MessageType type() {
    return MessageType.AUTH_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public AuthRole role() {
    return role;
  }

  /** The application the connection will act for; empty for the cluster role. */
  public String appId() {
    return appId;
  }

  /** Shared with this message; do not modify. */
  public byte[] clientNonce() {
    return clientNonce;
  }

  @Override
  public int encodedLength() {
    return 8 + 1 + WireEncoding.stringLength(appId) + NONCE_BYTES;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    out.writeByte(role.code());
    WireEncoding.writeString(out, appId);
    out.writeBytes(clientNonce);
  }

  public static AuthRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    AuthRole role = AuthRole.fromCode(in.readByte());
    String appId = WireEncoding.readString(in);
    byte[] nonce = WireEncoding.readFixedBytes(in, NONCE_BYTES);
    return new AuthRequest(requestId, role, appId, nonce);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthRequest other
        && requestId == other.requestId
        && role == other.role
        && appId.equals(other.appId)
        && Arrays.equals(clientNonce, other.clientNonce);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, role, appId) * 31 + Arrays.hashCode(clientNonce);
  }

  @Override
  public String toString() {
    return "AuthRequest[requestId=" + requestId + ", role=" + role + ", appId=" + appId + "]";
  }
}
