package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * A reader asks for a partition's index file (offset, length, block id, task attempt and CRC of
 * each flushed block). Answered by a {@link FetchIndexResponse}.
 */
public final class FetchIndexRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;

  public FetchIndexRequest(long requestId, String appId, int shuffleId, int partitionId) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_INDEX_REQUEST;
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

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4 + 4;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(partitionId);
  }

  public static FetchIndexRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    return new FetchIndexRequest(requestId, appId, shuffleId, partitionId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchIndexRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, partitionId);
  }

  @Override
  public String toString() {
    return "FetchIndexRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitionId="
        + partitionId
        + "]";
  }
}
