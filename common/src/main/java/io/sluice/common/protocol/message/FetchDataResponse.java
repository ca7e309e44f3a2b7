package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import java.util.Objects;

/**
 * Answer to a {@link FetchDataRequest}: the body is the requested range of the data file, sent from
 * a file segment without copying.
 *
 * <p>Equality and hash code cover the header only; bodies are compared by content where needed.
 */
public final class FetchDataResponse extends AbstractBodyMessage implements ResponseMessage {
  private final ResponseHeader header;

  /** Takes over the caller's reference to {@code body}. */
  private FetchDataResponse(
      long requestId, StatusCode status, String errorMessage, ManagedBuffer body) {
    this(new ResponseHeader(requestId, status, errorMessage), body);
  }

  private FetchDataResponse(ResponseHeader header, ManagedBuffer body) {
    super(Objects.requireNonNull(body, "body"));
    this.header = header;
  }

  /** Takes over the caller's reference to {@code data}. */
  public static FetchDataResponse ok(long requestId, ManagedBuffer data) {
    return new FetchDataResponse(requestId, StatusCode.OK, "", data);
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_DATA_RESPONSE;
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

  /**
   * Decodes the header from {@code in} and takes the rest of the frame as the body: a retained
   * slice of {@code in}, owned by the returned message (release the message when done with it). The
   * caller keeps its own reference to {@code in}.
   */
  public static FetchDataResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    return new FetchDataResponse(
        header, new NettyManagedBuffer(in.readRetainedSlice(in.readableBytes())));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchDataResponse other && header.equals(other.header);
  }

  @Override
  public int hashCode() {
    return header.hashCode();
  }

  @Override
  public String toString() {
    return "FetchDataResponse[" + header.describe() + ", bodySize=" + body().size() + "]";
  }
}
