package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.WireEncoding;
import java.util.Arrays;
import java.util.Objects;

/**
 * A map task asks the driver for new locations of partitions whose location could not take their
 * blocks (sent to the driver's endpoint, whose address travels in the shuffle handle). For each
 * partition it names the epoch it last wrote to; the driver makes a new location only where that
 * epoch is still the current one, so that many tasks reporting one lost server move each partition
 * once. Answered by a {@link LocationsResponse} with the current location of each partition.
 */
public final class RelocateRequest implements ApplicationRequest {
  private final long requestId;
  private final String appId;
  private final int shuffleId;
  private final int[] partitionIds;
  private final int[] epochs;
  private final String failedServerId;
  private final String reason;

  /**
   * Takes the arrays as they are (no copy): the caller must not modify them afterwards.
   *
   * @param failedServerId the server found unusable, empty when the failure does not say which
   *     server of the location failed (a replica the primary could not reach)
   */
  public RelocateRequest(
      long requestId,
      String appId,
      int shuffleId,
      int[] partitionIds,
      int[] epochs,
      String failedServerId,
      String reason) {
    this.requestId = requestId;
    this.appId = WireEncoding.checkString("appId", appId);
    this.shuffleId = shuffleId;
    this.partitionIds = Objects.requireNonNull(partitionIds, "partitionIds");
    this.epochs = Objects.requireNonNull(epochs, "epochs");
    if (partitionIds.length != epochs.length) {
      throw new IllegalArgumentException(
          partitionIds.length + " partitions but " + epochs.length + " epochs");
    }
    this.failedServerId = WireEncoding.checkString("failedServerId", failedServerId);
    this.reason = WireEncoding.truncateText(reason);
  }

  @Override
  public MessageType type() {
    return MessageType.RELOCATE_REQUEST;
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

  /** Shared with this message, do not modify. */
  public int[] partitionIds() {
    return partitionIds;
  }

  /** The epoch each partition was last written at; shared with this message, do not modify. */
  public int[] epochs() {
    return epochs;
  }

  /** The server found unusable, or empty when unknown. */
  public String failedServerId() {
    return failedServerId;
  }

  /** What failed, for the driver's log. */
  public String reason() {
    return reason;
  }

  @Override
  public int encodedLength() {
    return 8
        + WireEncoding.stringLength(appId)
        + 4
        + 4
        + 8 * partitionIds.length
        + WireEncoding.stringLength(failedServerId)
        + WireEncoding.stringLength(reason);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    WireEncoding.writeString(out, appId);
    out.writeInt(shuffleId);
    out.writeInt(partitionIds.length);
    for (int i = 0; i < partitionIds.length; i++) {
      out.writeInt(partitionIds[i]);
      out.writeInt(epochs[i]);
    }
    WireEncoding.writeString(out, failedServerId);
    WireEncoding.writeString(out, reason);
  }

  public static RelocateRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    String appId = WireEncoding.readString(in);
    int shuffleId = in.readInt();
    int count = WireEncoding.readCount(in, 8, "partition");
    int[] partitionIds = new int[count];
    int[] epochs = new int[count];
    for (int i = 0; i < count; i++) {
      partitionIds[i] = in.readInt();
      epochs[i] = in.readInt();
      if (partitionIds[i] < 0 || epochs[i] < 0) {
        throw new CorruptFrameException(
            "negative partition " + partitionIds[i] + " or epoch " + epochs[i]);
      }
    }
    String failedServerId = WireEncoding.readString(in);
    String reason = WireEncoding.readString(in);
    return new RelocateRequest(
        requestId, appId, shuffleId, partitionIds, epochs, failedServerId, reason);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RelocateRequest other
        && requestId == other.requestId
        && appId.equals(other.appId)
        && shuffleId == other.shuffleId
        && Arrays.equals(partitionIds, other.partitionIds)
        && Arrays.equals(epochs, other.epochs)
        && failedServerId.equals(other.failedServerId)
        && reason.equals(other.reason);
  }

  @Override
  public int hashCode() {
    return 31
            * (31 * Objects.hash(requestId, appId, shuffleId, failedServerId, reason)
                + Arrays.hashCode(partitionIds))
        + Arrays.hashCode(epochs);
  }

  @Override
  public String toString() {
    return "RelocateRequest[requestId="
        + requestId
        + ", appId="
        + appId
        + ", shuffleId="
        + shuffleId
        + ", partitions="
        + partitionIds.length
        + ", failedServerId="
        + failedServerId
        + "]";
  }
}
