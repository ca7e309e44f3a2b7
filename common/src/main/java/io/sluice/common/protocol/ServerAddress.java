package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import java.io.Serializable;

/**
 * Where a shuffle server can be reached: {@code string serverId | string host | int32 port}.
 *
 * @param serverId the server's stable id (survives restarts on the same host and port)
 * @param host host name or address that clients connect to
 * @param port data port, 0..65535
 */
public record ServerAddress(String serverId, String host, int port) implements Serializable {
  /** Smallest encoded size (two empty strings and a port): bounds counts read from the wire. */
  public static final int MIN_ENCODED_LENGTH = 2 + 2 + 4;

  public ServerAddress {
    WireEncoding.checkString("serverId", serverId);
    WireEncoding.checkString("host", host);
    if (port < 0 || port > 0xFFFF) {
      throw new IllegalArgumentException("port " + port + " is not in 0..65535");
    }
  }

  public int encodedLength() {
    return WireEncoding.stringLength(serverId) + WireEncoding.stringLength(host) + 4;
  }

  public void encode(ByteBuf out) {
    WireEncoding.writeString(out, serverId);
    WireEncoding.writeString(out, host);
    out.writeInt(port);
  }

  public static ServerAddress decode(ByteBuf in) {
    String serverId = WireEncoding.readString(in);
    String host = WireEncoding.readString(in);
    int port = in.readInt();
    if (port < 0 || port > 0xFFFF) {
      throw new CorruptFrameException("port " + port + " is not in 0..65535");
    }
    return new ServerAddress(serverId, host, port);
  }

  @Override
  public String toString() {
    return serverId + "@" + host + ":" + port;
  }
}
