package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;
import java.util.Objects;

/**
 * Answer to a {@link GetAssignmentRequest} for connections speaking protocol versions before 6: the
 * servers involved, listed once each, and for every partition the indexes of its servers in that
 * list (first the primary, then the replicas in chain order). Its size grows with the partitions;
 * from version 6 the coordinator answers with {@link AssignmentRunsResponse} instead.
 */
public final class AssignmentResponse implements AssignmentAnswer {

  private final ResponseHeader header;
  private final List<ServerAddress> servers;
  private final PartitionChains chains;

  private AssignmentResponse(
      ResponseHeader header, List<ServerAddress> servers, PartitionChains chains) {
    this.header = header;
    this.servers = List.copyOf(servers);
    this.chains = AssignmentAnswer.checkIndexes(this.servers, chains);
  }

  /**
   * @throws IllegalArgumentException if a chain names a server that is not listed
   */
  public static AssignmentResponse ok(
      long requestId, List<ServerAddress> servers, PartitionChains chains) {
    return new AssignmentResponse(
        new ResponseHeader(requestId, StatusCode.OK, ""), servers, chains);
  }

  /**
   * The encoded size of such an answer, computed without building it: a long, because a layout of
   * many partitions can exceed what a frame (or an int) holds.
   */
  public static long encodedLength(List<ServerAddress> servers, PartitionChains chains) {
    return encodedLength(new ResponseHeader(0, StatusCode.OK, ""), servers, chains);
  }

  private static long encodedLength(
      ResponseHeader header, List<ServerAddress> servers, PartitionChains chains) {
    long length = header.encodedLength() + ServerAddress.listLength(servers) + 4;
    return length + (long) chains.partitionCount() * (2 + 4L * chains.copies());
  }

  @Override
  public MessageType type() {
    return MessageType.ASSIGNMENT_RESPONSE;
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
    return Math.toIntExact(encodedLength(header, servers, chains));
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    ServerAddress.encodeList(out, servers);
    out.writeInt(chains.partitionCount());
    int copies = chains.copies();
    for (int p = 0; p < chains.partitionCount(); p++) {
      out.writeShort(copies);
      for (int c = 0; c < copies; c++) {
        out.writeInt(chains.server(p, c));
      }
    }
  }

  public static AssignmentResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    List<ServerAddress> servers = ServerAddress.decodeList(in);
    int serverCount = servers.size();
    int partitionCount = WireEncoding.readCount(in, 2, "partition");
    if (partitionCount == 0) {
      throw new CorruptFrameException("an assignment has at least one partition");
    }
    int[][] partitionServers = new int[partitionCount][];
    for (int p = 0; p < partitionCount; p++) {
      int n = WireEncoding.readShortCount(in, 4, "server index");
      if (n == 0 || p > 0 && n != partitionServers[0].length) {
        throw new CorruptFrameException(
            "partition "
                + p
                + " has "
                + n
                + " servers; every "
                + "partition has the same number, at least 1");
      }
      int[] indexes = new int[n];
      for (int i = 0; i < n; i++) {
        int index = in.readInt();
        if (index < 0 || index >= serverCount) {
          throw new CorruptFrameException(
              "partition "
                  + p
                  + " names server index "
                  + index
                  + " but the assignment lists "
                  + serverCount
                  + " servers");
        }
        indexes[i] = index;
      }
      partitionServers[p] = indexes;
    }
    return new AssignmentResponse(header, servers, PartitionChains.ofChains(partitionServers));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AssignmentResponse other
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
    return "AssignmentResponse["
        + header.describe()
        + ", servers="
        + servers.size()
        + ", partitions="
        + chains.partitionCount()
        + "]";
  }
}
