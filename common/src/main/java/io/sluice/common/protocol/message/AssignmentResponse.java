package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Answer to a {@link GetAssignmentRequest}: the servers involved, listed once each, and for every
 * partition the indexes of its servers in that list (first the primary, then the replicas in chain
 * order). Listing servers once keeps the answer small for shuffles with many partitions.
 */
public final class AssignmentResponse implements ResponseMessage {

  private final ResponseHeader header;
  private final List<ServerAddress> servers;
  private final int[][] partitionServers;

  /**
   * Takes {@code partitionServers} as is (no copy): the caller must not modify it afterwards.
   *
   * @param partitionServers for each partition, indexes into {@code servers}, primary first
   * @throws IllegalArgumentException if an index is out of range or a partition has more than 65535
   *     servers
   */
  private AssignmentResponse(long requestId, StatusCode status, String errorMessage,
      List<ServerAddress> servers, int[][] partitionServers) {
    this(new ResponseHeader(requestId, status, errorMessage), List.copyOf(servers),
        partitionServers);
    for (int[] indexes : partitionServers) {
      WireEncoding.checkShortCount("servers of a partition", indexes.length);
      for (int index : indexes) {
        if (index < 0 || index >= this.servers.size()) {
          throw new IllegalArgumentException("server index " + index + " is not in 0.."
              + (this.servers.size() - 1));
        }
      }
    }
  }

  private AssignmentResponse(
      ResponseHeader header, List<ServerAddress> servers, int[][] partitionServers) {
    this.header = header;
    this.servers = servers;
    this.partitionServers = Objects.requireNonNull(partitionServers, "partitionServers");
  }

  public static AssignmentResponse ok(
      long requestId, List<ServerAddress> servers, int[][] partitionServers) {
    return new AssignmentResponse(requestId, StatusCode.OK, "", servers, partitionServers);
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

  /** Every server the assignment names, each once. */
  public List<ServerAddress> servers() {
    return servers;
  }

  public int partitionCount() {
    return partitionServers.length;
  }

  /**
   * Indexes into {@link #servers()} of a partition's servers, primary first; the array is shared with
   * this message, do not modify it.
   */
  public int[] serverIndexes(int partition) {
    return partitionServers[partition];
  }

  /** A partition's servers, primary first. */
  public List<ServerAddress> serversOf(int partition) {
    int[] indexes = partitionServers[partition];
    List<ServerAddress> result = new ArrayList<>(indexes.length);
    for (int index : indexes) {
      result.add(servers.get(index));
    }
    return result;
  }

  @Override
  public int encodedLength() {
    int length = header.encodedLength() + 4;
    for (ServerAddress server : servers) {
      length += server.encodedLength();
    }
    length += 4;
    for (int[] indexes : partitionServers) {
      length += 2 + 4 * indexes.length;
    }
    return length;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    out.writeInt(servers.size());
    for (ServerAddress server : servers) {
      server.encode(out);
    }
    out.writeInt(partitionServers.length);
    for (int[] indexes : partitionServers) {
      out.writeShort(indexes.length);
      for (int index : indexes) {
        out.writeInt(index);
      }
    }
  }

  public static AssignmentResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    int serverCount = WireEncoding.readCount(in, ServerAddress.MIN_ENCODED_LENGTH, "server");
    ServerAddress[] servers = new ServerAddress[serverCount];
    for (int i = 0; i < serverCount; i++) {
      servers[i] = ServerAddress.decode(in);
    }
    int partitionCount = WireEncoding.readCount(in, 2, "partition");
    int[][] partitionServers = new int[partitionCount][];
    for (int p = 0; p < partitionCount; p++) {
      int n = WireEncoding.readShortCount(in, 4, "server index");
      int[] indexes = new int[n];
      for (int i = 0; i < n; i++) {
        int index = in.readInt();
        if (index < 0 || index >= serverCount) {
          throw new CorruptFrameException("partition " + p + " names server index " + index
              + " but the assignment lists " + serverCount + " servers");
        }
        indexes[i] = index;
      }
      partitionServers[p] = indexes;
    }
    return new AssignmentResponse(header, List.of(servers), partitionServers);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AssignmentResponse other
        && header.equals(other.header)
        && servers.equals(other.servers)
        && Arrays.deepEquals(partitionServers, other.partitionServers);
  }

  @Override
  public int hashCode() {
    return 31 * Objects.hash(header, servers) + Arrays.deepHashCode(partitionServers);
  }

  @Override
  public String toString() {
    return "AssignmentResponse[" + header.describe() + ", servers=" + servers.size()
        + ", partitions=" + partitionServers.length + "]";
  }
}
