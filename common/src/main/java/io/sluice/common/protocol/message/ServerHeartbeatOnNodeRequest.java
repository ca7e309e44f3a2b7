package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.WireEncoding;
import java.util.Objects;

/**
 * A shuffle server's periodic report to the coordinator that also names the node (machine) the
 * server runs on, from protocol version 7: the coordinator keeps a partition's copies on servers of
 * different nodes, which are not always told apart by the names clients reach the servers by (on
 * Kubernetes, every pod has a name of its own). To a coordinator speaking an older version a server
 * sends {@link ServerHeartbeatRequest}, whose node is the server's host. Answered by a {@link
 * StatusResponse}.
 *
 * <p>Wire form: {@code int64 requestId | ServerStatus status | string node}.
 */
public final class ServerHeartbeatOnNodeRequest implements RequestMessage {
  /** The first protocol version with this message. */
  public static final int SINCE_VERSION = 7;

  private final long requestId;
  private final ServerStatus status;
  private final String node;

  public ServerHeartbeatOnNodeRequest(long requestId, ServerStatus status, String node) {
    this.requestId = requestId;
    this.status = Objects.requireNonNull(status, "status");
    this.node = WireEncoding.checkString("node", node);
  }

  @Override
  public MessageType type() {
    return MessageType.SERVER_HEARTBEAT_ON_NODE_REQUEST;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public ServerStatus status() {
    return status;
  }

  /** The machine the server runs on. */
  public String node() {
    return node;
  }

  @Override
  public int encodedLength() {
    return 8 + status.encodedLength() + WireEncoding.stringLength(node);
  }

  @Override
  public void encode(ByteBuf out) {
    out.writeLong(requestId);
    status.encode(out);
    WireEncoding.writeString(out, node);
  }

  public static ServerHeartbeatOnNodeRequest decode(ByteBuf in) {
    long requestId = in.readLong();
    ServerStatus status = ServerStatus.decode(in);
    String node = WireEncoding.readString(in);
    return new ServerHeartbeatOnNodeRequest(requestId, status, node);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerHeartbeatOnNodeRequest other
        && requestId == other.requestId
        && status.equals(other.status)
        && node.equals(other.node);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, status, node);
  }

  @Override
  public String toString() {
    return "ServerHeartbeatOnNodeRequest[requestId="
        + requestId
        + ", serverId="
        + status.serverId()
        + ", node="
        + node
        + ", state="
        + status.state()
        + ", timestampMillis="
        + status.timestampMillis()
        + "]";
  }
}
