package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * Answer to a {@link GetShuffleResultRequest}: for each map attempt of the request, in the same
 * order, the number of blocks it committed to the partition on this server, or {@link
 * #NOT_COMMITTED} when this server holds no commit of that attempt for the partition.
 */
public final class GetShuffleResultResponse implements ResponseMessage {
  /** The count of an attempt that committed nothing to the partition here. */
  public static final int NOT_COMMITTED = -1;

  private final ResponseHeader header;
  private final int[] blockCounts;

  /** Takes {@code blockCounts} as is (no copy): the caller must not modify it afterwards. */
  public GetShuffleResultResponse(long requestId, int[] blockCounts) {
    this(new ResponseHeader(requestId, StatusCode.OK, ""), blockCounts);
  }

  private GetShuffleResultResponse(ResponseHeader header, int[] blockCounts) {
    this.header = header;
    this.blockCounts = Objects.requireNonNull(blockCounts, "blockCounts");
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

  /** Block counts parallel to the request's attempts; shared with this message, do not modify. */
  public int[] blockCounts() {
    return blockCounts;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + WireEncoding.intArrayLength(blockCounts);
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    WireEncoding.writeIntArray(out, blockCounts);
  }

  public static GetShuffleResultResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    int[] blockCounts = WireEncoding.readIntArray(in);
    return new GetShuffleResultResponse(header, blockCounts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GetShuffleResultResponse other
        && header.equals(other.header)
        && Arrays.equals(blockCounts, other.blockCounts);
  }

  @Override
  public int hashCode() {
    return 31 * header.hashCode() + Arrays.hashCode(blockCounts);
  }

  @Override
  public String toString() {
    return "GetShuffleResultResponse["
        + header.describe()
        + ", blockCounts="
        + blockCounts.length
        + "]";
  }
}
