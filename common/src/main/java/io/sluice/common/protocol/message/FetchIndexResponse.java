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
 * Answer to a {@link FetchIndexRequest}: the body is the partition's index file, and {@link
 * #dataFileLength()} the length of its data file when the index was read, so that the reader
 * fetches only data the index describes.
 *
 * <p>Equality and hash code cover the header only; bodies are compared by content where needed.
 */
public final class FetchIndexResponse extends AbstractBodyMessage implements ResponseMessage {
  private final ResponseHeader header;
  private final long dataFileLength;

  /** Takes over the caller's reference to {@code body}. */
  private FetchIndexResponse(
      long requestId,
      StatusCode status,
      String errorMessage,
      long dataFileLength,
      ManagedBuffer body) {
    this(new ResponseHeader(requestId, status, errorMessage), dataFileLength, body);
  }

  private FetchIndexResponse(ResponseHeader header, long dataFileLength, ManagedBuffer body) {
    super(Objects.requireNonNull(body, "body"));
    this.header = header;
    this.dataFileLength = dataFileLength;
  }

  /** Takes over the caller's reference to {@code indexBytes}. */
  public static FetchIndexResponse ok(
      long requestId, long dataFileLength, ManagedBuffer indexBytes) {
    return new FetchIndexResponse(requestId, StatusCode.OK, "", dataFileLength, indexBytes);
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_INDEX_RESPONSE;
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

  public long dataFileLength() {
    return dataFileLength;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + 8;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeLong(dataFileLength);
  }

  /**
   * Decodes the header from {@code in} and takes the rest of the frame as the body: a retained
   * slice of {@code in}, owned by the returned message (release the message when done with it). The
   * caller keeps its own reference to {@code in}.
   */
  public static FetchIndexResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    long dataFileLength = in.readLong();
    return new FetchIndexResponse(
        header, dataFileLength, new NettyManagedBuffer(in.readRetainedSlice(in.readableBytes())));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchIndexResponse other
        && header.equals(other.header)
        && dataFileLength == other.dataFileLength;
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, dataFileLength);
  }

  @Override
  public String toString() {
    return "FetchIndexResponse["
        + header.describe()
        + ", dataFileLength="
        + dataFileLength
        + ", bodySize="
        + body().size()
        + "]";
  }
}
