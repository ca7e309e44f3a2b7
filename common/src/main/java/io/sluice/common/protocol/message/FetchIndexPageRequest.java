package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * Protocol 5. A reader asks for one page of a partition's index: the entries from entry number
 * {@link #fromEntry()} on, at most {@link #maxBytes()} of them, so that an index of any number of
 * blocks is read in frames the reader can take. Answered by a {@link FetchIndexPageResponse}, which
 * names the entry to ask from next.
 */
public final class FetchIndexPageRequest implements ApplicationRequest {
  /** The first protocol version with index pages. */
  public static final int SINCE_VERSION = 5;

  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;
  private final int fromEntry;
  private final int maxBytes;

  public FetchIndexPageRequest(
      long requestId, String appId, int shuffleId, int partitionId, int fromEntry, int maxBytes) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.fromEntry = fromEntry;
    this.maxBytes = maxBytes;
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_INDEX_PAGE_REQUEST;
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

  /** The number of the first entry wanted: 0, then the previous page's nextEntry. */
  public int fromEntry() {
    return fromEntry;
  }

  /** The most bytes of entries the reader takes in the answer's body. */
  public int maxBytes() {
    return maxBytes;
  }

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4 + 4 + 4 + 4;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(partitionId);
    out.writeInt(fromEntry);
    out.writeInt(maxBytes);
  }

  public static FetchIndexPageRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int partitionId = in.readInt();
    int fromEntry = in.readInt();
    int maxBytes = in.readInt();
    return new FetchIndexPageRequest(requestId, appId, shuffleId, partitionId, fromEntry, maxBytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchIndexPageRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && partitionId == other.partitionId
        && fromEntry == other.fromEntry
        && maxBytes == other.maxBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, partitionId, fromEntry, maxBytes);
  }

  @Override
  public String toString() {
    return "FetchIndexPageRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitionId="
        + partitionId
        + ", fromEntry="
        + fromEntry
        + ", maxBytes="
        + maxBytes
        + "]";
  }
}
