package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * A reader asks for a partition's blocks that are still in the server's memory (not yet flushed),
 * in the order they arrived. The server numbers a partition's blocks in arrival order; the reader
 * pages through them by that sequence number, repeating with the response's {@link
 * FetchMemoryDataResponse#lastSequence()} while it says there is more. Paging by sequence rather
 * than by block means a block flushed between two pages is never skipped: it is either in a later
 * page or on disk. Only blocks of the listed map attempts are returned (an empty list returns every
 * attempt's), so that a reader of a map range (AQE's skew splits and local reads) moves only the
 * bytes it needs.
 */
public final class FetchMemoryDataRequest implements ApplicationRequest {
  /** {@link #afterSequence()} asking for the blocks from the first one on. */
  public static final long FROM_START = -1L;

  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;
  private final long afterSequence;
  private final int maxBytes;
  private final long[] taskAttemptIds;

  /** Takes {@code taskAttemptIds} as is (no copy): the caller must not modify it afterwards. */
  public FetchMemoryDataRequest(
      long requestId,
      String appId,
      int shuffleId,
      int partitionId,
      long afterSequence,
      int maxBytes,
      long[] taskAttemptIds) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.afterSequence = afterSequence;
    this.maxBytes = maxBytes;
    this.taskAttemptIds = Objects.requireNonNull(taskAttemptIds, "taskAttemptIds");
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

  /** The map attempts whose blocks to return, empty for all; shared, do not modify. */
  public long[] taskAttemptIds() {
    return taskAttemptIds;
  }

  @Override
  public int encodedLength() {
    return 8
        + WireEncoding.stringLength(appId)
        + 4
        + 4
        + 8
        + 4
        + WireEncoding.longArrayLength(taskAttemptIds);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(partitionId);
    out.writeLong(afterSequence);
    out.writeInt(maxBytes);
    WireEncoding.writeLongArray(out, taskAttemptIds);
  }

  public static FetchMemoryDataRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    long afterSequence = in.readLong();
    int maxBytes = in.readInt();
    long[] taskAttemptIds = WireEncoding.readLongArray(in);
    return new FetchMemoryDataRequest(
        requestId, appId, shuffleId, partitionId, afterSequence, maxBytes, taskAttemptIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchMemoryDataRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId
        && afterSequence == other.afterSequence
        && maxBytes == other.maxBytes
        && Arrays.equals(taskAttemptIds, other.taskAttemptIds);
  }

  @Override
  public int hashCode() {
    return 31 * Objects.hash(requestId, appId, shuffleId, partitionId, afterSequence, maxBytes)
        + Arrays.hashCode(taskAttemptIds);
  }

  @Override
  public String toString() {
    return "FetchMemoryDataRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitionId="
        + partitionId
        + ", afterSequence="
        + afterSequence
        + ", maxBytes="
        + maxBytes
        + ", taskAttemptIds="
        + taskAttemptIds.length
        + "]";
  }
}
