package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * A reader asks for a partition's blocks that are still in the server's memory (not yet flushed),
 * in the order they arrived. Answered by a {@link FetchMemoryDataResponse}; the reader repeats with
 * the last block id it got while the response says there is more.
 */
public final class FetchMemoryDataRequest implements RequestMessage {
  /** {@link #afterBlockId()} asking for the blocks from the first one on. */
  public static final long FROM_START = -1L;

  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;
  private final long afterBlockId;
  private final int maxBytes;

  public FetchMemoryDataRequest(long requestId, String appId, int shuffleId, int partitionId,
      long afterBlockId, int maxBytes) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.afterBlockId = afterBlockId;
    this.maxBytes = maxBytes;
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_MEMORY_DATA_REQUEST;
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

  /** The last block id the reader already has, or {@link #FROM_START}. */
  public long afterBlockId() {
    return afterBlockId;
  }

  /** Upper bound on the body size of the answer. */
  public int maxBytes() {
    return maxBytes;
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
    out.writeLong(afterBlockId);
    out.writeInt(maxBytes);
  }

  public static FetchMemoryDataRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    long afterBlockId = in.readLong();
    int maxBytes = in.readInt();
    return new FetchMemoryDataRequest(
        requestId, appId, shuffleId, partitionId, afterBlockId, maxBytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchMemoryDataRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId
        && afterBlockId == other.afterBlockId
        && maxBytes == other.maxBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, partitionId, afterBlockId, maxBytes);
  }

  @Override
  public String toString() {
    return "FetchMemoryDataRequest[requestId=" + requestId + ", appId=" + appId + ", shuffleId="
        + shuffleId + ", partitionId=" + partitionId + ", afterBlockId=" + afterBlockId
        + ", maxBytes=" + maxBytes + "]";
  }
}
