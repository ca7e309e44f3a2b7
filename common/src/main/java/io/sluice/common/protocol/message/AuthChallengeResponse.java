package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;

/**
 * Protocol 4. The server's answer to an {@link AuthRequest} it can verify: a fresh random nonce of
 * its own, which the client's proof must cover.
 */
public final class AuthChallengeResponse implements ResponseMessage {
  private final ResponseHeader header;
  private final byte[] serverNonce;

  public AuthChallengeResponse(long requestId, byte[] serverNonce) {
    this(new ResponseHeader(requestId, StatusCode.OK, ""), serverNonce);
  }

  private AuthChallengeResponse(ResponseHeader header, byte[] serverNonce) {
    this.header = header;
    this.serverNonce =
        WireEncoding.checkFixedBytes("serverNonce", serverNonce, AuthRequest.NONCE_BYTES);
  }

  @Override
  public MessageType type() {
    return MessageType.AUTH_CHALLENGE_RESPONSE;
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
  public byte[] serverNonce() {
    return serverNonce;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + AuthRequest.NONCE_BYTES;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeBytes(serverNonce);
  }

  public static AuthChallengeResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    return new AuthChallengeResponse(
        header, WireEncoding.readFixedBytes(in, AuthRequest.NONCE_BYTES));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthChallengeResponse other
        && header.equals(other.header)
        && Arrays.equals(serverNonce, other.serverNonce);
  }

  @Override
  public int hashCode() {
    return 31 * header.hashCode() + Arrays.hashCode(serverNonce);
  }

  @Override
  public String toString() {
    return "AuthChallengeResponse[" + header.describe() + "]";
  }
}
