package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;
import java.util.Objects;

/**
 * What a shuffle server reports to the coordinator in each {@link ServerHeartbeatRequest}.
 *
 * <p>Wire form: {@code string serverId | string host | int32 dataPort | int32 httpPort | byte state
 * | string version | int64 pushBufferUsed | int64 pushBufferCapacity | int64 readBufferUsed | int64
 * readBufferCapacity | int32 partitionsHeld | uint16 diskCount | DiskStatus x diskCount | uint16
 * tagCount | string x tagCount | int64 timestampMillis}.
 *
 * @param serverId the server's stable id
 * @param host host clients connect to
 * @param dataPort the shuffle data port
 * @param httpPort the metrics and status HTTP port
 * @param state whether the server takes new work
 * @param version the server's software version
 * @param pushBufferUsed bytes of pushed data held in memory, not yet flushed
 * @param pushBufferCapacity the push memory budget in bytes
 * @param readBufferUsed bytes held in memory for reads
 * @param readBufferCapacity the read memory budget in bytes
 * @param partitionsHeld number of partitions the server holds data for
 * @param disks one entry per configured disk
 * @param tags labels an assignment request can ask for
 * @param timestampMillis when the status was taken, server's wall clock
 */
public record ServerStatus(
    String serverId,
    String host,
    int dataPort,
    int httpPort,
    ServerState state,
    String version,
    long pushBufferUsed,
    long pushBufferCapacity,
    long readBufferUsed,
    long readBufferCapacity,
    int partitionsHeld,
    List<DiskStatus> disks,
    List<String> tags,
    long timestampMillis) {

  public ServerStatus {
    WireEncoding.checkString("serverId", serverId);
    WireEncoding.checkString("host", host);
    Objects.requireNonNull(state, "state");
    WireEncoding.checkString("version", version);
    disks = List.copyOf(disks);
    WireEncoding.checkShortCount("disks", disks.size());
    tags = WireEncoding.checkStringList("tags", tags);
  }

  public int encodedLength() {
    int length =
        WireEncoding.stringLength(serverId)
            + WireEncoding.stringLength(host)
            + 4
            + 4
            + 1
            + WireEncoding.stringLength(version)
            + 8 * 4
            + 4
            + 2;
    for (DiskStatus disk : disks) {
      length += disk.encodedLength();
    }
    return length + WireEncoding.stringListLength(tags) + 8;
  }

  public void encode(ByteBuf out) {
    WireEncoding.writeString(out, serverId);
    WireEncoding.writeString(out, host);
    out.writeInt(dataPort);
    out.writeInt(httpPort);
    out.writeByte(state.code());
    WireEncoding.writeString(out, version);
    out.writeLong(pushBufferUsed);
    out.writeLong(pushBufferCapacity);
    out.writeLong(readBufferUsed);
    out.writeLong(readBufferCapacity);
    out.writeInt(partitionsHeld);
    out.writeShort(disks.size());
    for (DiskStatus disk : disks) {
      disk.encode(out);
    }
    WireEncoding.writeStringList(out, tags);
    out.writeLong(timestampMillis);
  }

  public static ServerStatus decode(ByteBuf in) {
    String serverId = WireEncoding.readString(in);
    String host = WireEncoding.readString(in);
    int dataPort = in.readInt();
    int httpPort = in.readInt();
    ServerState state = ServerState.fromCode(in.readByte());
    String version = WireEncoding.readString(in);
    long pushBufferUsed = in.readLong();
    long pushBufferCapacity = in.readLong();
    long readBufferUsed = in.readLong();
    long readBufferCapacity = in.readLong();
    int partitionsHeld = in.readInt();
    int diskCount = WireEncoding.readShortCount(in, DiskStatus.MIN_ENCODED_LENGTH, "disk");
    DiskStatus[] disks = new DiskStatus[diskCount];
    for (int i = 0; i < diskCount; i++) {
      disks[i] = DiskStatus.decode(in);
    }
    List<String> tags = WireEncoding.readStringList(in);
    long timestampMillis = in.readLong();
    return new ServerStatus(
        serverId,
        host,
        dataPort,
        httpPort,
        state,
        version,
        pushBufferUsed,
        pushBufferCapacity,
        readBufferUsed,
        readBufferCapacity,
        partitionsHeld,
        List.of(disks),
        tags,
        timestampMillis);
  }
}
