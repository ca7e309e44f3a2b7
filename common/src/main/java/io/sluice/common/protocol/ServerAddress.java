package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import java.io.Serializable;
import java.util.List;

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

  /** Encoded size of a server list: {@code int32 count} then each address. */
  public static int listLength(List<ServerAddress> servers) {
    int length = 4;
    for (ServerAddress server : servers) {
      length += server.encodedLength();
    }
    return length;
  }

  public static void encodeList(ByteBuf out, List<ServerAddress> servers) {
    out.writeInt(servers.size());
    for (ServerAddress server : servers) {
      server.encode(out);
    }
  }

  /** A server list, its count bounded by the bytes left in the frame. */
  public static List<ServerAddress> decodeList(ByteBuf in) {
    int count = WireEncoding.readCount(in, MIN_ENCODED_LENGTH, "server");
    ServerAddress[] servers = new ServerAddress[count];
    for (int i = 0; i < count; i++) {
      servers[i] = decode(in);
    }
    return List.of(servers);
  }
}
