package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.WireEncoding;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The driver's answer to a {@link RelocateRequest} or a {@link GetLocationsRequest}: partition
 * locations, each a partition id, an epoch and a chain of servers (indexes into a list of servers
 * named once), primary first.
 */
public final class LocationsResponse implements ResponseMessage {
  private static final int MIN_ENTRY_LENGTH = 4 + 4 + 2;

  /** One location of one partition. */
  public record Entry(int partitionId, PartitionLocation location) {}

  private final ResponseHeader header;
  private final List<Entry> entries;

  public LocationsResponse(long requestId, List<Entry> entries) {
    this(new ResponseHeader(requestId, StatusCode.OK, ""), entries);
  }

  private LocationsResponse(ResponseHeader header, List<Entry> entries) {
    this.header = header;
    this.entries = List.copyOf(entries);
    for (Entry e : this.entries) {
      WireEncoding.checkShortCount("servers of a location", e.location().servers().size());
    }
  }

  @Override
  public MessageType type() {
    return MessageType.LOCATIONS_RESPONSE;
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

  /** The locations, in the order the driver listed them (per partition, oldest first). */
  public List<Entry> entries() {
    return entries;
  }

  private List<ServerAddress> servers() {
    Map<ServerAddress, Integer> index = new HashMap<>();
    List<ServerAddress> servers = new ArrayList<>();
    for (Entry e : entries) {
      for (ServerAddress s : e.location().servers()) {
        if (index.putIfAbsent(s, servers.size()) == null) {
          servers.add(s);
        }
      }
    }
    return servers;
  }

  @Override
  public int encodedLength() {
    int length = header.encodedLength() + ServerAddress.listLength(servers()) + 4;
    for (Entry e : entries) {
      length += MIN_ENTRY_LENGTH + 4 * e.location().servers().size();
    }
    return length;
  }

  @Override
  public void encode(ByteBuf out) {
    header.encode(out);
    List<ServerAddress> servers = servers();
    ServerAddress.encodeList(out, servers);
    Map<ServerAddress, Integer> index = new HashMap<>();
    for (ServerAddress server : servers) {
      index.put(server, index.size());
    }
    out.writeInt(entries.size());
    for (Entry e : entries) {
      out.writeInt(e.partitionId());
      out.writeInt(e.location().epoch());
      out.writeShort(e.location().servers().size());
      for (ServerAddress s : e.location().servers()) {
        out.writeInt(index.get(s));
      }
    }
  }

  public static LocationsResponse decode(ByteBuf in) {
    ResponseHeader header = ResponseHeader.decode(in);
    List<ServerAddress> servers = ServerAddress.decodeList(in);
    int serverCount = servers.size();
    int count = WireEncoding.readCount(in, MIN_ENTRY_LENGTH, "location");
    Entry[] entries = new Entry[count];
    for (int i = 0; i < count; i++) {
      int partitionId = in.readInt();
      int epoch = in.readInt();
      int n = WireEncoding.readShortCount(in, 4, "server index");
      if (partitionId < 0 || epoch < 0 || n == 0) {
        throw new CorruptFrameException(
            "location "
                + i
                + " has partition "
                + partitionId
                + ", epoch "
                + epoch
                + " and "
                + n
                + " servers");
      }
      List<ServerAddress> chain = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        int index = in.readInt();
        if (index < 0 || index >= serverCount) {
          throw new CorruptFrameException(
              "location "
                  + i
                  + " names server index "
                  + index
                  + " but the answer lists "
                  + serverCount
                  + " servers");
        }
        chain.add(servers.get(index));
      }
      entries[i] = new Entry(partitionId, new PartitionLocation(epoch, chain));
    }
    return new LocationsResponse(header, List.of(entries));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LocationsResponse other
        && header.equals(other.header)
        && entries.equals(other.entries);
  }

  @Override
  public int hashCode() {
    return Objects.hash(header, entries);
  }

  @Override
  public String toString() {
    return "LocationsResponse[" + header.describe() + ", locations=" + entries.size() + "]";
  }
}
