package io.sluice.common.checksum;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli) of block bytes, computed in place: heap buffers through their array, direct
 * and composite buffers through views of their NIO buffers, never through a copy. The JDK's {@link
 * CRC32C} uses the CPU's CRC32 instructions where present.
 */
public final class Crc32c {
  private Crc32c() {}

  /** The CRC32C of {@code buf}'s readable bytes; the buffer's indexes do not move. */
  public static int of(ByteBuf buf) {
    return of(buf, buf.readerIndex(), buf.readableBytes());
  }

  /**
   * The CRC32C of bytes {@code [index, index + length)} of {@code buf}; the buffer's indexes do not
   * move.
   *
   * @throws IndexOutOfBoundsException if the range is not within the buffer's capacity
   */
  public static int of(ByteBuf buf, int index, int length) {
    CRC32C crc = new CRC32C();
    update(crc, buf, index, length);
    return (int) crc.getValue();
  }

  /** The CRC32C of {@code bytes}. */
  public static int of(byte[] bytes) {
    return of(bytes, 0, bytes.length);
  }

  /** The CRC32C of {@code length} bytes of {@code bytes} from {@code offset}. */
  public static int of(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  /**
   * Adds bytes {@code [index, index + length)} of {@code buf} to a running checksum, for data that
   * arrives in pieces. The buffer's indexes do not move.
   */
  public static void update(CRC32C crc, ByteBuf buf, int index, int length) {
    if (index < 0 || length < 0 || index > buf.capacity() - length) {
      throw new IndexOutOfBoundsException(
          "range ["
              + index
              + ", "
              + index
              + " + "
              + length
              + ") is outside a buffer of capacity "
              + buf.capacity());
    }
    if (buf.hasArray()) {
      crc.update(buf.array(), buf.arrayOffset() + index, length);
    } else if (buf.nioBufferCount() == 1) {
      crc.update(buf.nioBuffer(index, length));
    } else {
      for (ByteBuffer component : buf.nioBuffers(index, length)) {
        crc.update(component);
      }
    }
  }
}
