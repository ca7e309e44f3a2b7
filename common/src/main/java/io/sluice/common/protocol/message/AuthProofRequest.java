package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * Protocol 4. The client's proof that it holds the secret its role names: an HMAC-SHA256 over both
 * nonces, the role and the application (docs/protocol.md gives the exact input), and, for the
 * registrar role only, the application's secret wrapped with AES-GCM under a key derived from the
 * cluster secret and both nonces ({@code ""} otherwise). Answered by an {@link AuthProofResponse},
 * or by a {@link StatusResponse} with UNAUTHENTICATED after which the server closes the connection.
 */
public final class AuthProofRequest implements RequestMessage {
  public static final int MAC_BYTES = 32;

  private final long requestId;
  private final byte[] mac;
  private final byte[] wrappedSecret;

  public AuthProofRequest(long requestId, byte[] mac, byte[] wrappedSecret) {
    this.requestId = requestId;
    this.mac = WireEncoding.checkFixedBytes("mac", mac, MAC_BYTES);
    this.wrappedSecret = WireEncoding.checkShortBytes("wrappedSecret", wrappedSecret);
  }

  @Override
  public MessageType type() {
    return MessageType.AUTH_PROOF_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  /** Shared with this message; do not modify. */
  public byte[] mac() {
    return mac;
  }

  /** The registrar's wrapped application secret; empty for other roles. Shared; do not modify. */
  public byte[] wrappedSecret() {
    return wrappedSecret;
  }

  @Override
  public int encodedLength() {
    return 8 + MAC_BYTES + WireEncoding.shortBytesLength(wrappedSecret);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    out.writeBytes(mac);
    WireEncoding.writeShortBytes(out, wrappedSecret);
  }

  public static AuthProofRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    byte[] mac = WireEncoding.readFixedBytes(in, MAC_BYTES);
    byte[] wrapped = WireEncoding.readShortBytes(in);
    return new AuthProofRequest(requestId, mac, wrapped);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthProofRequest other
        && requestId == other.requestId
        && Arrays.equals(mac, other.mac)
        && Arrays.equals(wrappedSecret, other.wrappedSecret);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId) * 961
        + Arrays.hashCode(mac) * 31
        + Arrays.hashCode(wrappedSecret);
  }

  @Override
  public String toString() {
    return "AuthProofRequest[requestId="
        + requestId
        + ", wrappedSecret="
        + wrappedSecret.length
        + " bytes]";
  }
}
