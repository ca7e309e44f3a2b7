package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import java.util.List;
import java.util.Objects;

/**
 * Answer to a {@link GetAssignmentRequest} from protocol version 6: the servers involved, listed
 * once each, and the partitions' chains as runs of neighbouring partitions ({@link
 * PartitionChains}), so that its size grows with the servers, not with the partitions.
 */
public final class AssignmentRunsResponse implements AssignmentAnswer {
  /** The first protocol version that has this message. */
  public static final int SINCE_VERSION = 6;

  private final ResponseHeader header;
  private final List<ServerAddress> servers;
  private final PartitionChains chains;

  private AssignmentRunsResponse(
      ResponseHeader header, List<ServerAddress> servers, PartitionChains chains) {
    this.header = header;
    this.servers = List.copyOf(servers);
    this.chains = AssignmentAnswer.checkIndexes(this.servers, chains);
  }

  /**
   * @throws IllegalArgumentException if a chain names a server that is not listed
   */
  public static AssignmentRunsResponse ok(
      long requestId, List<ServerAddress> servers, PartitionChains chains) {
    return new AssignmentRunsResponse(
        new ResponseHeader(requestId, StatusCode.OK, ""), servers, chains);
  }

  @Override
  public MessageType type() {
    return MessageType.ASSIGNMENT_RUNS_RESPONSE;
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

  @Override
  public List<ServerAddress> servers() {
    return servers;
  }

  @Override
  public PartitionChains chains() {
    return chains;
  }

  @Override
  public int encodedLength() {
    return header.encodedLength() + ServerAddress.listLength(servers) + chains.encodedLength();
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    ServerAddress.encodeList(out, servers);
    chains.encode(out);
  }

  public static AssignmentRunsResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    List<ServerAddress> servers = ServerAddress.decodeList(in);
    return new AssignmentRunsResponse(header, servers, PartitionChains.decode(in, servers.size()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AssignmentRunsResponse other
        && header.equals(other.header)
        && servers.equals(other.servers)
        && chains.equals(other.chains);
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, servers, chains);
  }

  @Override
  public String toString() {
    return "AssignmentRunsResponse["
        + header.describe()
        + ", servers="
        + servers.size()
        + ", "
        + chains
        + "]";
  }
}
