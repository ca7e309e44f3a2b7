package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * The fields every response starts with: {@code int64 requestId | byte status | string
 * errorMessage}. An error message too long for a string field is truncated here, at construction,
 * so that what a response holds is exactly what goes on the wire.
 */
record ResponseHeader(long requestId, StatusCode status, String errorMessage) {

  ResponseHeader {
    Objects.requireNonNull(status, "status");
    errorMessage = WireEncoding.truncateText(errorMessage);
  }

  /** The header of an error answer; refuses {@link StatusCode#OK}. */
  static ResponseHeader error(long requestId, StatusCode status, String errorMessage) {
    if (status == StatusCode.OK) {
      throw new IllegalArgumentException("an error response needs a status other than OK");
    }
    return new ResponseHeader(requestId, status, errorMessage);
  }

  int encodedLength() {
    return 8 + 1 + WireEncoding.stringLength(errorMessage);
  }

  void encode(ByteBuf out) {
    out.writeLong(requestId);
    out.writeByte(status.code());
    WireEncoding.writeString(out, errorMessage);
  }

  static ResponseHeader decode(ByteBuf in) {
    long requestId = in.readLong();
    StatusCode status = StatusCode.fromCode(in.readByte());
    String errorMessage = WireEncoding.readString(in);
    return new ResponseHeader(requestId, status, errorMessage);
  }

  /** The fields for a response's {@code toString}. */
  String describe() {
    return errorMessage.isEmpty()
        ? "requestId=" + requestId + ", status=" + status
        : "requestId=" + requestId + ", status=" + status + ", errorMessage=" + errorMessage;
  }
}
