package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * A reader asks for a partition's blocks that are still in the server's memory (not yet flushed),
 * in the order they arrived. The server numbers a partition's blocks in arrival order; the reader
 * pages through them by that sequence number, repeating with the response's
 * {@link FetchMemoryDataResponse#lastSequence()} while it says there is more. Paging by sequence
 * rather than by block id means a block flushed between two pages is never skipped: it is either in a
 * later page or on disk.
 */
public final class FetchMemoryDataRequest implements RequestMessage {
  /** {@link #afterSequence()} asking for the blocks from the first one on. */
  public static final long FROM_START = -1L;

  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;
  private final long afterSequence;
  private final int maxBytes;

  public FetchMemoryDataRequest(long requestId, String appId, int shuffleId, int partitionId,
      long afterSequence, int maxBytes) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.afterSequence = afterSequence;
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

  /** The sequence number of the last block the reader already has, or {@link #FROM_START}. */
  public long afterSequence() {
    return afterSequence;
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
    out.writeLong(afterSequence);
    out.writeInt(maxBytes);
  }

  public static FetchMemoryDataRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    long afterSequence = in.readLong();
    int maxBytes = in.readInt();
    return new FetchMemoryDataRequest(
        requestId, appId, shuffleId, partitionId, afterSequence, maxBytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchMemoryDataRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId
        && afterSequence == other.afterSequence
        && maxBytes == other.maxBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, partitionId, afterSequence, maxBytes);
  }

  @Override
  public String toString() {
    return "FetchMemoryDataRequest[requestId=" + requestId + ", appId=" + appId + ", shuffleId="
        + shuffleId + ", partitionId=" + partitionId + ", afterSequence=" + afterSequence
        + ", maxBytes=" + maxBytes + "]";
  }
}
