package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * A reduce task asks the driver's endpoint for every location partitions {@code [startPartition,
 * endPartition)} of a shuffle ever had, so that it reads blocks written before and after a
 * relocation. Answered by a {@link LocationsResponse}.
 */
public final class GetLocationsRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int startPartition;
  private final int endPartition;

  public GetLocationsRequest(
      long requestId, String appId, int shuffleId, int startPartition, int endPartition) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.startPartition = startPartition;
    this.endPartition = endPartition;
  }

  @Override
  public MessageType type() {
    return MessageType.GET_LOCATIONS_REQUEST;
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

  /** First partition asked for. */
  public int startPartition() {
    return startPartition;
  }

  /** One past the last partition asked for. */
  public int endPartition() {
    return endPartition;
  }

  @Override
  public int encodedLength() {
    return 8 + WireEncoding.stringLength(appId) + 4 + 4 + 4;
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(startPartition);
    out.writeInt(endPartition);
  }

  public static GetLocationsRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int start = in.readInt();
    int end = in.readInt();
    return new GetLocationsRequest(requestId, appId, shuffleId, start, end);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GetLocationsRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && startPartition == other.startPartition
        && endPartition == other.endPartition;
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, appId, shuffleId, startPartition, endPartition);
  }

  @Override
  public String toString() {
    return "GetLocationsRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitions=["
        + startPartition
        + ", "
        + endPartition
        + ")]";
  }
}
