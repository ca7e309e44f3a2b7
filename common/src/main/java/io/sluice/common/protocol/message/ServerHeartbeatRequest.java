package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import java.util.Objects;

/**
 * A shuffle server's periodic report to the coordinator. A server that stops sending it, reports
 * unhealthy disks or is decommissioning gets no new work. Answered by a {@link StatusResponse}.
 */
public final class ServerHeartbeatRequest implements RequestMessage {
  private final long requestId;
  private final ServerStatus status;

  public ServerHeartbeatRequest(long requestId, ServerStatus status) {
    this.requestId = requestId;
    this.status = Objects.requireNonNull(status, "status");
  }

  @Override
  public MessageType type() {
    return MessageType.SERVER_HEARTBEAT_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public ServerStatus status() {
    return status;
  }

  @Override
  public int encodedLength() {
    return 8 + status.encodedLength();
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    status.encode(out);
  }

  public static ServerHeartbeatRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    ServerStatus status = ServerStatus.decode(in);
    return new ServerHeartbeatRequest(requestId, status);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerHeartbeatRequest other
        && requestId == other.requestId
        && status.equals(other.status);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, status);
  }

  @Override
  public String toString() {
    return "ServerHeartbeatRequest[requestId="
        + requestId
        + ", serverId="
        + status.serverId()
        + ", state="
        + status.state()
        + ", timestampMillis="
        + status.timestampMillis()
        + "]";
  }
}
