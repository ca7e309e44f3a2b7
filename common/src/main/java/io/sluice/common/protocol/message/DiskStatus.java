package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.WireEncoding;

/**
 * One disk of a shuffle server, as reported in {@link ServerStatus}: {@code string path | int64
 * totalBytes | int64 usedBytes | bool healthy}.
 */
public record DiskStatus(String path, long totalBytes, long usedBytes, boolean healthy) {
  /** Encoded size with an empty path. */
  public static final int MIN_ENCODED_LENGTH = 2 + 8 + 8 + 1;

  public DiskStatus {
    WireEncoding.checkString("path", path);
  }

  public int encodedLength() {
    return WireEncoding.stringLength(path) + 8 + 8 + 1;
  }

  public void encode(ByteBuf out) {
    WireEncoding.writeString(out, path);
    out.writeLong(totalBytes);
    out.writeLong(usedBytes);
    WireEncoding.writeBoolean(out, healthy);
  }

  public static DiskStatus decode(ByteBuf in) {
    String path = WireEncoding.readString(in);
    long totalBytes = in.readLong();
    long usedBytes = in.readLong();
    boolean healthy = WireEncoding.readBoolean(in);
    return new DiskStatus(path, totalBytes, usedBytes, healthy);
  }
}
