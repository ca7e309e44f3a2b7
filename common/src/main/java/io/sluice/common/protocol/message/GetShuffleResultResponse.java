package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/** Answer to a {@link GetShuffleResultRequest}: the ids of the blocks the reader must read. */
public final class GetShuffleResultResponse implements ResponseMessage {
  private static final long[] NO_IDS = new long[0];

  private final ResponseHeader header;
  private final long[] blockIds;

  /** Takes {@code blockIds} as is (no copy): the caller must not modify it afterwards. */
  public GetShuffleResultResponse(
      long requestId, StatusCode status, String errorMessage, long[] blockIds) {
    this(new ResponseHeader(requestId, status, errorMessage), blockIds);
  }

  private GetShuffleResultResponse(ResponseHeader header, long[] blockIds) {
    this.header = header;
    this.blockIds = Objects.requireNonNull(blockIds, "blockIds");
  }

  public static GetShuffleResultResponse ok(long requestId, long[] blockIds) {
    return new GetShuffleResultResponse(requestId, StatusCode.OK, "", blockIds);
  }

  /** An error answer: no block ids. */
  public static GetShuffleResultResponse error(long requestId, StatusCode status, String message) {
    return new GetShuffleResultResponse(ResponseHeader.error(requestId, status, message), NO_IDS);
  }

  @Override
  public MessageType type() {
    return MessageType.GET_SHUFFLE_RESULT_RESPONSE;
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

  /** The block ids; the array is shared with this message, do not modify it. */
  public long[] blockIds() {
    return blockIds;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + WireEncoding.longArrayLength(blockIds);
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    WireEncoding.writeLongArray(out, blockIds);
  }

  public static GetShuffleResultResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    long[] blockIds = WireEncoding.readLongArray(in);
    return new GetShuffleResultResponse(header, blockIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GetShuffleResultResponse other
        && header.equals(other.header)
        && Arrays.equals(blockIds, other.blockIds);
  }

  @Override
  public int hashCode() {
    return 31 * header.hashCode() + Arrays.hashCode(blockIds);
  }

  @Override
  public String toString() {
    return "GetShuffleResultResponse[" + header.describe() + ", blockIds=" + blockIds.length + "]";
  }
}
