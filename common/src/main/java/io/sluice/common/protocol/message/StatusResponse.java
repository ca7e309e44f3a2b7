package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;

/**
 * The generic answer: just the response header. It answers the requests that need nothing more than
 * a status, and it may answer any request with a non-OK status when the receiver rejects it before
 * decoding or dispatching it (protocol errors, missing handshake), so a client must accept it in
 * place of the specific response type.
 */
public final class StatusResponse implements ResponseMessage {
  private final ResponseHeader header;

  public StatusResponse(long requestId, StatusCode status, String errorMessage) {
    this(new ResponseHeader(requestId, status, errorMessage));
  }

  private StatusResponse(ResponseHeader header) {
    this.header = header;
  }

  public static StatusResponse ok(long requestId) {
    return new StatusResponse(requestId, StatusCode.OK, "");
  }

  public static StatusResponse error(long requestId, StatusCode status, String message) {
    return new StatusResponse(ResponseHeader.error(requestId, status, message));
  }

  @Override
  public MessageType type() {
    return MessageType.STATUS_RESPONSE;
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

  @Override
  public int encodedLength() {
    return header.encodedLength();
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
  }

  public static StatusResponse decode(ByteBuf in) {
    return new StatusResponse(ResponseHeader.decode(in));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StatusResponse other && header.equals(other.header);
  }

  @Override
  public int hashCode() {
    return header.hashCode();
  }

  @Override
  public String toString() {
    return "StatusResponse[" + header.describe() + "]";
  }
}
