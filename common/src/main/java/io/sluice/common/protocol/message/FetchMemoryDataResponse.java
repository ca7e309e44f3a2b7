package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;
import java.util.Objects;

/**
 * Answer to a {@link FetchMemoryDataRequest}: blocks still in memory, described by {@link
 * #blocks()}, their bytes back to back in the body. {@link #lastSequence()} is the sequence number
 * of the last block returned (the request's own when none was), and {@link #hasMore()} says whether
 * more blocks were left out because of the request's byte limit.
 *
 * <p>Equality and hash code cover the header only; bodies are compared by content where needed.
 */
public final class FetchMemoryDataResponse extends AbstractBodyMessage implements ResponseMessage {
  private final ResponseHeader header;
  private final boolean hasMore;
  private final long lastSequence;
  private final List<BlockDescriptor> blocks;

  /**
   * Takes over the caller's reference to {@code body}, except when the constructor throws (then the
   * caller still owns it).
   *
   * @throws IllegalArgumentException if the blocks' lengths do not add up to the body's size
   */
  private FetchMemoryDataResponse(
      long requestId,
      StatusCode status,
      String errorMessage,
      boolean hasMore,
      long lastSequence,
      List<BlockDescriptor> blocks,
      ManagedBuffer body) {
    this(new ResponseHeader(requestId, status, errorMessage), hasMore, lastSequence, blocks, body);
  }

  private FetchMemoryDataResponse(
      ResponseHeader header,
      boolean hasMore,
      long lastSequence,
      List<BlockDescriptor> blocks,
      ManagedBuffer body) {
    super(Objects.requireNonNull(body, "body"));
    this.header = header;
    this.hasMore = hasMore;
    this.lastSequence = lastSequence;
    this.blocks = List.copyOf(blocks);
    BlockDescriptor.checkBodySize(this.blocks, body.size());
  }

  /** Takes over the caller's reference to {@code body}. */
  public static FetchMemoryDataResponse ok(
      long requestId,
      boolean hasMore,
      long lastSequence,
      List<BlockDescriptor> blocks,
      ManagedBuffer body) {
    return new FetchMemoryDataResponse(
        requestId, StatusCode.OK, "", hasMore, lastSequence, blocks, body);
  }

  @Override
  public MessageType type() {
    return MessageType.FETCH_MEMORY_DATA_RESPONSE;
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

  public boolean hasMore() {
    return hasMore;
  }

  /** Sequence number of the last block returned; the next page asks for blocks after it. */
  public long lastSequence() {
    return lastSequence;
  }

  /** The blocks in the body, in body order. */
  public List<BlockDescriptor> blocks() {
    return blocks;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + 1 + 8 + BlockDescriptor.listLength(blocks);
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    WireEncoding.writeBoolean(out, hasMore);
    out.writeLong(lastSequence);
    BlockDescriptor.encodeList(out, blocks);
  }

  /**
   * Decodes the header from {@code in} and takes the rest of the frame as the body: a retained
   * slice of {@code in}, owned by the returned message (release the message when done with it). The
   * caller keeps its own reference to {@code in}.
   */
  public static FetchMemoryDataResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    boolean hasMore = WireEncoding.readBoolean(in);
    long lastSequence = in.readLong();
    List<BlockDescriptor> blocks = BlockDescriptor.decodeList(in);
    BlockDescriptor.checkFrameBodySize(blocks, in.readableBytes());
    ManagedBuffer body = new NettyManagedBuffer(in.readRetainedSlice(in.readableBytes()));
    try {
      return new FetchMemoryDataResponse(header, hasMore, lastSequence, blocks, body);
    } catch (RuntimeException e) {
      body.release();
      throw e;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchMemoryDataResponse other
        && header.equals(other.header)
        && hasMore == other.hasMore
        && lastSequence == other.lastSequence
        && blocks.equals(other.blocks);
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, hasMore, lastSequence, blocks);
  }

  @Override
  public String toString() {
    return "FetchMemoryDataResponse["
        + header.describe()
        + ", hasMore="
        + hasMore
        + ", lastSequence="
        + lastSequence
        + ", blocks="
        + blocks.size()
        + ", bodySize="
        + body().size()
        + "]";
  }
}
