package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * A reader asks for a range of a partition's data file, usually many blocks at once. Answered by a
 * {@link FetchDataResponse}.
 */
public final class FetchDataRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;
  private final long offset;
  private final int length;

  public FetchDataRequest(
      long requestId, String appId, int shuffleId, int partitionId, long offset, int length) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.offset = offset;
    this.length = length;
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_DATA_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public String appId() {
    return appId;
  }

  public int shuffleId() {
    return shuffleId;
  }

  public int partitionId() {
    return partitionId;
  }

  /** Byte offset in the partition's data file. */
  public long offset() {
    return offset;
  }

  /** Number of bytes to read from {@link #offset()}. */
  public int length() {
    return length;
  }

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4 + 4 + 8 + 4;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(partitionId);
    out.writeLong(offset);
    out.writeInt(length);
  }

  public static FetchDataRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    long offset = in.readLong();
    int length = in.readInt();
    return new FetchDataRequest(requestId, appId, shuffleId, partitionId, offset, length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchDataRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId
        && offset == other.offset
        && length == other.length;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, partitionId, offset, length);
  }

  @Override
  public String toString() {
    return "FetchDataRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitionId="
        + partitionId
        + ", offset="
        + offset
        + ", length="
        + length
        + "]";
  }
}
