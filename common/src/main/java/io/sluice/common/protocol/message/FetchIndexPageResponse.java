package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import io.sluice.common.shuffle.IndexEntry;
import java.util.Objects;

/**
 * Protocol 5. Answer to a {@link FetchIndexPageRequest}: a page of the partition's index entries as
 * the body, the logical length of the partition's data when the page was read, the number of the
 * entry to ask from next, and whether entries follow.
 *
 * <p>Equality and hash code cover the header only; bodies are compared by content where needed.
 */
public final class FetchIndexPageResponse extends AbstractBodyMessage implements ResponseMessage {
  private final ResponseHeader header;
  private final long dataFileLength;
  private final int nextEntry;
  private final boolean hasMore;

  private FetchIndexPageResponse(
      ResponseHeader header,
      long dataFileLength,
      int nextEntry,
      boolean hasMore,
      ManagedBuffer body) {
    super(Objects.requireNonNull(body, "body"));
    this.header = header;
    this.dataFileLength = dataFileLength;
    this.nextEntry = nextEntry;
    this.hasMore = hasMore;
  }

  /** Takes over the caller's reference to {@code entries}. */
  public static FetchIndexPageResponse ok(
      long requestId, long dataFileLength, int nextEntry, boolean hasMore, ManagedBuffer entries) {
    return new FetchIndexPageResponse(
        new ResponseHeader(requestId, StatusCode.OK, ""),
        dataFileLength,
        nextEntry,
        hasMore,
        entries);
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_INDEX_PAGE_RESPONSE;
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

  /** Logical length of the partition's data when the page was read; its entries lie within it. */
  public long dataFileLength() {
    return dataFileLength;
  }

  /** The entry number to ask from for the next page. */
  public int nextEntry() {
    return nextEntry;
  }

  /**
   * Whether entries from {@link #nextEntry()} on exist; when false the index was read to its end.
   */
  public boolean hasMore() {
    return hasMore;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + 8 + 4 + 1;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeLong(dataFileLength);
    out.writeInt(nextEntry);
    WireEncoding.writeBoolean(out, hasMore);
  }

  /**
   * Decodes the header from {@code in} and takes the rest of the frame as the body: a retained
   * slice of {@code in}, owned by the returned message. The caller keeps its own reference to
   * {@code in}.
   */
  public static FetchIndexPageResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    long dataFileLength = in.readLong();
    int nextEntry = in.readInt();
    boolean hasMore = WireEncoding.readBoolean(in);
    if (in.readableBytes() % IndexEntry.SIZE != 0) {
      throw new CorruptFrameException(
          "an index page of "
              + in.readableBytes()
              + " bytes is not a whole number of "
              + IndexEntry.SIZE
              + "-byte entries");
    }
    return new FetchIndexPageResponse(
        header,
        dataFileLength,
        nextEntry,
        hasMore,
        new NettyManagedBuffer(in.readRetainedSlice(in.readableBytes())));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchIndexPageResponse other
        && header.equals(other.header)
        && dataFileLength == other.dataFileLength
        && nextEntry == other.nextEntry
        && hasMore == other.hasMore;
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, dataFileLength, nextEntry, hasMore);
  }

  @Override
  public String toString() {
    return "FetchIndexPageResponse["
        + header.describe()
        + ", dataFileLength="
        + dataFileLength
        + ", nextEntry="
        + nextEntry
        + ", hasMore="
        + hasMore
        + ", bodySize="
        + body().size()
        + "]";
  }
}
