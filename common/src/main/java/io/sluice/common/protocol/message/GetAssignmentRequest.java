package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;
import java.util.Objects;

/**
 * The driver asks the coordinator which servers hold each partition of a new shuffle. Answered by
 * an {@link AssignmentRunsResponse} (an {@link AssignmentResponse} to peers before version 6).
 */
public final class GetAssignmentRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int numPartitions;
  private final int replicaCount;
  private final List<String> tags;
  private final List<String> excludedServerIds;

  public GetAssignmentRequest(
      long requestId,
      String appId,
      int shuffleId,
      int numPartitions,
      int replicaCount,
      List<String> tags,
      List<String> excludedServerIds) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.numPartitions = numPartitions;
    this.replicaCount = replicaCount;
    this.tags = WireEncoding.checkStringList("tags", tags);
    this.excludedServerIds = WireEncoding.checkStringList("excludedServerIds", excludedServerIds);
  }

  @Override
  public MessageType type() {
    return MessageType.GET_ASSIGNMENT_REQUEST;
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

  public int numPartitions() {
    return numPartitions;
  }

  /** Copies of each partition wanted: 1 for no replication, 2 for one replica. */
  public int replicaCount() {
    return replicaCount;
  }

  /** Only servers carrying all these tags qualify; empty for any server. */
  public List<String> tags() {
    return tags;
  }

  /**
   * Servers that must not be named, whatever their state (the client found them unreachable); empty
   * for none.
   */
  public List<String> excludedServerIds() {
    return excludedServerIds;
  }

  @Override
  public int encodedLength() {
    return 8
        + WireEncoding.stringLength(appId)
        + 4
        + 4
        + 4
        + WireEncoding.stringListLength(tags)
        + WireEncoding.stringListLength(excludedServerIds);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(numPartitions);
    out.writeInt(replicaCount);
    WireEncoding.writeStringList(out, tags);
    WireEncoding.writeStringList(out, excludedServerIds);
  }

  public static GetAssignmentRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int numPartitions = in.readInt();
    int replicaCount = in.readInt();
    List<String> tags = WireEncoding.readStringList(in);
    List<String> excluded = WireEncoding.readStringList(in);
    return new GetAssignmentRequest(
        requestId, appId, shuffleId, numPartitions, replicaCount, tags, excluded);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GetAssignmentRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && numPartitions == other.numPartitions
        && replicaCount == other.replicaCount
        && tags.equals(other.tags)
        && excludedServerIds.equals(other.excludedServerIds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        requestId, appId, shuffleId, numPartitions, replicaCount, tags, excludedServerIds);
  }

  @Override
  public String toString() {
    return "GetAssignmentRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", numPartitions="
        + numPartitions
        + ", replicaCount="
        + replicaCount
        + ", tags="
        + tags
        + ", excludedServerIds="
        + excludedServerIds
        + "]";
  }
}
