package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import java.util.Objects;

/**
 * Answer to a {@link RequireBufferRequest}: the ticket for the reserved memory, or
 * {@link StatusCode#NO_BUFFER} (retriable) when the server cannot take the bytes now.
 */
public final class RequireBufferResponse implements ResponseMessage {
  private final ResponseHeader header;
  private final long ticketId;

  public RequireBufferResponse(
      long requestId, StatusCode status, String errorMessage, long ticketId) {
    this(new ResponseHeader(requestId, status, errorMessage), ticketId);
  }

  private RequireBufferResponse(ResponseHeader header, long ticketId) {
    this.header = header;
    this.ticketId = ticketId;
  }

  public static RequireBufferResponse ok(long requestId, long ticketId) {
    return new RequireBufferResponse(requestId, StatusCode.OK, "", ticketId);
  }

  /** An error answer: ticket 0 (none). */
  public static RequireBufferResponse error(long requestId, StatusCode status, String message) {
    return new RequireBufferResponse(ResponseHeader.error(requestId, status, message), 0L);
  }

  @Override
  public MessageType type() {
    return MessageType.REQUIRE_BUFFER_RESPONSE;
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

  /** The reservation, to be passed in {@link PushDataRequest#ticketId()}. */
  public long ticketId() {
    return ticketId;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + 8;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeLong(ticketId);
  }

  public static RequireBufferResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    long ticketId = in.readLong();
    return new RequireBufferResponse(header, ticketId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequireBufferResponse other
        && header.equals(other.header)
        && ticketId == other.ticketId;
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, ticketId);
  }

  @Override
  public String toString() {
    return "RequireBufferResponse[" + header.describe() + ", ticketId=" + ticketId + "]";
  }
}
