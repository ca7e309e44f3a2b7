package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The field encodings every message shares. All integers are big-endian.
 *
 * <ul>
 *   <li>string: {@code uint16} byte length, then that many bytes of UTF-8;
 *   <li>long / int array: {@code int32} count, then the elements;
 *   <li>bool: one byte, 0 or 1;
 *   <li>string list: {@code uint16} count, then the strings.
 * </ul>
 *
 * <p>Every {@code read} method validates a length or count against the bytes the buffer still holds
 * before it allocates anything, and throws {@link CorruptFrameException} when the bytes cannot be
 * what the encoder wrote. Fixed-size fields are read with the buffer's own methods, which throw
 * {@link IndexOutOfBoundsException} on a truncated frame.
 */
public final class WireEncoding {
  /** Largest number of UTF-8 bytes a string field can carry (its length is a {@code uint16}). */
  public static final int MAX_STRING_BYTES = 0xFFFF;

  /** Largest count a {@code uint16} count field can carry. */
  public static final int MAX_SHORT_COUNT = 0xFFFF;

  private WireEncoding() {}

  // ---- strings ----

  /**
   * Checks an identifier (application id, server id, host, ...) at message construction: not null,
   * at most {@link #MAX_STRING_BYTES} bytes of UTF-8. Returns it.
   */
  public static String checkString(String field, String value) {
    Objects.requireNonNull(value, field);
    int bytes = ByteBufUtil.utf8Bytes(value);
    if (bytes > MAX_STRING_BYTES) {
      throw new IllegalArgumentException(
          field
              + " is "
              + bytes
              + " bytes of UTF-8, more than the "
              + MAX_STRING_BYTES
              + " a string field can carry");
    }
    return value;
  }

  /**
   * Makes free text (an error message) fit a string field: {@code null} becomes empty, and text
   * longer than {@link #MAX_STRING_BYTES} bytes of UTF-8 is cut at the last whole character that
   * fits.
   */
  public static String truncateText(String text) {
    if (text == null) {
      return "";
    }
    if (text.length() <= MAX_STRING_BYTES / 3 || ByteBufUtil.utf8Bytes(text) <= MAX_STRING_BYTES) {
      return text;
    }
    int bytes = 0;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      int chars = 1;
      int charBytes;
      if (c < 0x80) {
        charBytes = 1;
      } else if (c < 0x800) {
        charBytes = 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        chars = 2;
        charBytes = 4;
      } else if (Character.isSurrogate(c)) {
        // An unpaired surrogate is written as '?', one byte (as ByteBufUtil.writeUtf8 does).
        charBytes = 1;
      } else {
        charBytes = 3;
      }
      if (bytes + charBytes > MAX_STRING_BYTES) {
        break;
      }
      bytes += charBytes;
      i += chars;
    }
    return text.substring(0, i);
  }

  /** Encoded size of a string field: 2 + its UTF-8 length. */
  public static int stringLength(String value) {
    return 2 + ByteBufUtil.utf8Bytes(value);
  }

  /** Writes a string field whose value passed {@link #checkString} or {@link #truncateText}. */
  public static void writeString(ByteBuf out, String value) {
    int bytes = ByteBufUtil.utf8Bytes(value);
    if (bytes > MAX_STRING_BYTES) {
      throw new IllegalArgumentException(
          "string of " + bytes + " bytes does not fit a string field");
    }
    out.writeShort(bytes);
    ByteBufUtil.writeUtf8(out, value);
  }

  /** Reads a string field; its length must fit the buffer and its bytes must be valid UTF-8. */
  public static String readString(ByteBuf in) {
    int length = in.readUnsignedShort();
    if (length > in.readableBytes()) {
      throw new CorruptFrameException(
          "string of "
              + length
              + " bytes but only "
              + in.readableBytes()
              + " bytes left in the frame");
    }
    if (length == 0) {
      return "";
    }
    // One bulk copy, then checks on the array: every push carries its application id, and
    // validating it byte by byte through the frame's buffer cost more than the rest of its header.
    byte[] bytes = new byte[length];
    in.getBytes(in.readerIndex(), bytes);
    if (!isAscii(bytes)
        && !ByteBufUtil.isText(Unpooled.wrappedBuffer(bytes), StandardCharsets.UTF_8)) {
      throw new CorruptFrameException("string of " + length + " bytes is not valid UTF-8");
    }
    in.skipBytes(length);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static boolean isAscii(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  // ---- string lists ----

  /** Checks a list of strings at construction: not null, at most 65535 entries, each valid. */
  public static List<String> checkStringList(String field, List<String> values) {
    List<String> copy = List.copyOf(Objects.requireNonNull(values, field));
    checkShortCount(field, copy.size());
    for (String value : copy) {
      checkString(field, value);
    }
    return copy;
  }

  public static int stringListLength(List<String> values) {
    int length = 2;
    for (String value : values) {
      length += stringLength(value);
    }
    return length;
  }

  public static void writeStringList(ByteBuf out, List<String> values) {
    out.writeShort(values.size());
    for (String value : values) {
      writeString(out, value);
    }
  }

  public static List<String> readStringList(ByteBuf in) {
    int count = readShortCount(in, 2, "string");
    List<String> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(readString(in));
    }
    return List.copyOf(values);
  }

  // ---- arrays ----
  // Arrays move in one copy each way: element-wise reads and writes of a 10,000-entry array cost a
  // bounds check each, and under Netty's paranoid leak detection a recorded stack trace each.

  /** Reads {@code bytes} bytes as one big-endian buffer to take values from. */
  public static ByteBuffer readBlock(ByteBuf in, int bytes) {
    byte[] block = new byte[bytes];
    in.readBytes(block);
    return ByteBuffer.wrap(block);
  }

  public static int longArrayLength(long[] values) {
    return 4 + 8 * values.length;
  }

  public static void writeLongArray(ByteBuf out, long[] values) {
    out.writeInt(values.length);
    ByteBuffer block = ByteBuffer.allocate(8 * values.length);
    block.asLongBuffer().put(values);
    out.writeBytes(block);
  }

  public static long[] readLongArray(ByteBuf in) {
    int count = readCount(in, 8, "long");
    long[] values = new long[count];
    readBlock(in, 8 * count).asLongBuffer().get(values);
    return values;
  }

  public static int intArrayLength(int[] values) {
    return 4 + 4 * values.length;
  }

  public static void writeIntArray(ByteBuf out, int[] values) {
    out.writeInt(values.length);
    ByteBuffer block = ByteBuffer.allocate(4 * values.length);
    block.asIntBuffer().put(values);
    out.writeBytes(block);
  }

  public static int[] readIntArray(ByteBuf in) {
    int count = readCount(in, 4, "int");
    int[] values = new int[count];
    readBlock(in, 4 * count).asIntBuffer().get(values);
    return values;
  }

  // ---- byte strings ----

  /** Checks at construction that a fixed-size field has its size; returns it unchanged. */
  public static byte[] checkFixedBytes(String field, byte[] value, int length) {
    Objects.requireNonNull(value, field);
    if (value.length != length) {
      throw new IllegalArgumentException(
          field + " must be " + length + " bytes, not " + value.length);
    }
    return value;
  }

  /** Reads a fixed-size field of {@code length} raw bytes. */
  public static byte[] readFixedBytes(ByteBuf in, int length) {
    byte[] value = new byte[length];
    in.readBytes(value);
    return value;
  }

  /** Checks at construction that a byte string fits a {@code uint16} length. */
  public static byte[] checkShortBytes(String field, byte[] value) {
    Objects.requireNonNull(value, field);
    if (value.length > MAX_SHORT_COUNT) {
      throw new IllegalArgumentException(
          field
              + " has "
              + value.length
              + " bytes, more than the "
              + MAX_SHORT_COUNT
              + " the protocol can carry");
    }
    return value;
  }

  /** {@code uint16 length | bytes}. */
  public static int shortBytesLength(byte[] value) {
    return 2 + value.length;
  }

  public static void writeShortBytes(ByteBuf out, byte[] value) {
    out.writeShort(value.length);
    out.writeBytes(value);
  }

  public static byte[] readShortBytes(ByteBuf in) {
    int length = readShortCount(in, 1, "byte");
    return readFixedBytes(in, length);
  }

  // ---- scalars ----

  public static void writeBoolean(ByteBuf out, boolean value) {
    out.writeByte(value ? 1 : 0);
  }

  public static boolean readBoolean(ByteBuf in) {
    byte b = in.readByte();
    if (b == 0) {
      return false;
    }
    if (b == 1) {
      return true;
    }
    throw new CorruptFrameException("boolean byte " + b + " is neither 0 nor 1");
  }

  // ---- counts ----

  /**
   * Reads an {@code int32} element count and checks that {@code count} elements of at least {@code
   * minElementBytes} each can fit in what is left of the frame, so that a garbled count never makes
   * the decoder allocate more than the frame could describe.
   */
  public static int readCount(ByteBuf in, int minElementBytes, String element) {
    int count = in.readInt();
    checkCountFits(in, count, minElementBytes, element);
    return count;
  }

  /** Like {@link #readCount} for a {@code uint16} count. */
  public static int readShortCount(ByteBuf in, int minElementBytes, String element) {
    int count = in.readUnsignedShort();
    checkCountFits(in, count, minElementBytes, element);
    return count;
  }

  /** Checks at construction that a collection can be described by a {@code uint16} count. */
  public static void checkShortCount(String field, int count) {
    if (count > MAX_SHORT_COUNT) {
      throw new IllegalArgumentException(
          field
              + " has "
              + count
              + " entries, more than the "
              + MAX_SHORT_COUNT
              + " the protocol can carry");
    }
  }

  private static void checkCountFits(ByteBuf in, int count, int minElementBytes, String element) {
    if (count < 0) {
      throw new CorruptFrameException("negative " + element + " count " + count);
    }
    if ((long) count * minElementBytes > in.readableBytes()) {
      throw new CorruptFrameException(
          count
              + " "
              + element
              + " entries cannot fit in the "
              + in.readableBytes()
              + " bytes left in the frame");
    }
  }
}
