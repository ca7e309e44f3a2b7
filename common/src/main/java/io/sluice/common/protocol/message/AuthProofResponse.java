package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;

/**
 * Protocol 4. The server accepted the client's proof; it proves in turn that it holds the same
 * secret (an HMAC-SHA256 over the same input with another label), so that a client never sends
 * shuffle data to a peer that merely accepts everyone.
 */
public final class AuthProofResponse implements ResponseMessage {
  private final ResponseHeader header;
  private final byte[] serverMac;

  public AuthProofResponse(long requestId, byte[] serverMac) {
    this(new ResponseHeader(requestId, StatusCode.OK, ""), serverMac);
  }

  private AuthProofResponse(ResponseHeader header, byte[] serverMac) {
    this.header = header;
    this.serverMac =
        WireEncoding.checkFixedBytes("serverMac", serverMac, AuthProofRequest.MAC_BYTES);
  }

  @Override
  public MessageType type() {
    return MessageType.AUTH_PROOF_RESPONSE;
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

  /** Shared with this message; do not modify. */
  public byte[] serverMac() {
    return serverMac;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + AuthProofRequest.MAC_BYTES;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeBytes(serverMac);
  }

  public static AuthProofResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    return new AuthProofResponse(
        header, WireEncoding.readFixedBytes(in, AuthProofRequest.MAC_BYTES));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthProofResponse other
        && header.equals(other.header)
        && Arrays.equals(serverMac, other.serverMac);
  }

  @Override
  public int hashCode() {
    return 31 * header.hashCode() + Arrays.hashCode(serverMac);
  }

  @Override
  public String toString() {
    return "AuthProofResponse[" + header.describe() + "]";
  }
}
