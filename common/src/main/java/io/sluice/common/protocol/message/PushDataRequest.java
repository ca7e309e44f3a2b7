package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;
import java.util.Objects;

/**
 * A batch of blocks of one shuffle, possibly of several partitions. The body is the blocks' bytes
 * back to back, in the order of {@link #blocks()}. For each partition in the batch, {@link
 * #replicaChains()} says where the receiver forwards it (chain replication: the client pushes once,
 * the primary forwards to the first replica with the rest of the chain, and so on). Answered by a
 * {@link StatusResponse} once every server of every chain holds the blocks.
 *
 * <p>Equality and hash code cover the header only; bodies are compared by content where needed.
 */
public final class PushDataRequest extends AbstractBodyMessage implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final List<ReplicaChain> replicaChains;
  private final List<BlockDescriptor> blocks;

  /**
   * Takes over the caller's reference to {@code body}, except when the constructor throws (then the
   * caller still owns it).
   *
   * @throws IllegalArgumentException if the blocks' lengths do not add up to the body's size
   */
  public PushDataRequest(
      long requestId,
      String appId,
      int shuffleId,
      List<ReplicaChain> replicaChains,
      List<BlockDescriptor> blocks,
      ManagedBuffer body) {
    super(Objects.requireNonNull(body, "body"));
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.replicaChains = List.copyOf(replicaChains);
    this.blocks = List.copyOf(blocks);
    BlockDescriptor.checkBodySize(this.blocks, body.size());
  }

  @Override
  public MessageType type() {
    return MessageType.PUSH_DATA_REQUEST;
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

  /** At most one entry per partition of the batch that has replicas to forward to. */
  public List<ReplicaChain> replicaChains() {
    return replicaChains;
  }

  /** The blocks in the body, in body order. */
  public List<BlockDescriptor> blocks() {
    return blocks;
  }

  @Override
  public int encodedLength() {
    int length = 8 + WireEncoding.stringLength(appId) + 4 + 4;
    for (ReplicaChain chain : replicaChains) {
      length += chain.encodedLength();
    }
    return length + BlockDescriptor.listLength(blocks);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(replicaChains.size());
    for (ReplicaChain chain : replicaChains) {
      chain.encode(out);
    }
    BlockDescriptor.encodeList(out, blocks);
  }

  /**
   * Decodes the header from {@code in} and takes the rest of the frame as the body: a retained
   * slice of {@code in}, owned by the returned message (release the message when done with it). The
   * caller keeps its own reference to {@code in}.
   */
  public static PushDataRequest decode(ByteBuf in) {
    Header header = decodeHeader(in);
    BlockDescriptor.checkFrameBodySize(header.blocks(), in.readableBytes());
    ManagedBuffer body = new NettyManagedBuffer(in.readRetainedSlice(in.readableBytes()));
    try {
      return header.withBody(body);
    } catch (RuntimeException e) {
      body.release();
      throw e;
    }
  }

  /**
   * Decodes the header alone from {@code in} (positioned after the type byte), leaving {@code in}
   * at the first byte of the body: for a receiver that takes the body elsewhere.
   */
  public static Header decodeHeader(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int chainCount = WireEncoding.readCount(in, ReplicaChain.MIN_ENCODED_LENGTH, "replica chain");
    ReplicaChain[] chains = new ReplicaChain[chainCount];
    for (int i = 0; i < chainCount; i++) {
      chains[i] = ReplicaChain.decode(in);
    }
    List<BlockDescriptor> blocks = BlockDescriptor.decodeList(in);
    return new Header(requestId, appId, shuffleId, List.of(chains), blocks);
  }

  /** The fields of a push before its body. */
  public record Header(
      long requestId,
      String appId,
      int shuffleId,
      List<ReplicaChain> replicaChains,
      List<BlockDescriptor> blocks) {

    /** The push with {@code body}, whose reference it takes (see the constructor). */
    public PushDataRequest withBody(ManagedBuffer body) {
      return new PushDataRequest(requestId, appId, shuffleId, replicaChains, blocks, body);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PushDataRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && replicaChains.equals(other.replicaChains)
        && blocks.equals(other.blocks);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, replicaChains, blocks);
  }

  @Override
  public String toString() {
    return "PushDataRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", replicaChains="
        + replicaChains.size()
        + ", blocks="
        + blocks.size()
        + ", bodySize="
        + body().size()
        + "]";
  }
}
