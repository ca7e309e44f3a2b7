package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.StatusResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireEncodingTest {

  @Test
  void stringsRoundTripWithTheirUtf8Length() {
    for (String s :
        List.of(
            "",
            "a",
            "application_1_0001",
            "ü",
            "\u2603 snow",
            "\uD83D\uDE00 emoji",
            "x".repeat(WireEncoding.MAX_STRING_BYTES))) {
      ByteBuf buf = Unpooled.buffer();
      try {
        WireEncoding.writeString(buf, s);
        assertEquals(WireEncoding.stringLength(s), buf.readableBytes());
        assertEquals(s.getBytes(StandardCharsets.UTF_8).length, buf.getUnsignedShort(0));
        assertEquals(s, WireEncoding.readString(buf));
        assertFalse(buf.isReadable());
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void readStringRejectsALengthBeyondTheBuffer() {
    ByteBuf buf = Unpooled.buffer().writeShort(5).writeBytes(new byte[] {'a', 'b', 'c', 'd'});
    try {
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readString(buf));
    } finally {
      buf.release();
    }
  }

  @Test
  void readStringRejectsInvalidUtf8() {
    byte[][] invalid = {
      {(byte) 0xC3, 0x28}, {(byte) 0xA0}, {(byte) 0xE2, (byte) 0x28, (byte) 0xA1},
      {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xB0, (byte) 0x80}, {(byte) 0xFF}
    };
    for (byte[] bytes : invalid) {
      ByteBuf buf = Unpooled.buffer().writeShort(bytes.length).writeBytes(bytes);
      try {
        assertThrows(CorruptFrameException.class, () -> WireEncoding.readString(buf));
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void identifiersTooLongForTheWireAreRejectedAtConstruction() {
    String tooLong = "é".repeat(WireEncoding.MAX_STRING_BYTES / 2 + 1);
    assertThrows(IllegalArgumentException.class, () -> new HandshakeRequest(1, 2, 2, tooLong));
    assertThrows(NullPointerException.class, () -> new HandshakeRequest(1, 2, 2, null));
    new HandshakeRequest(1, 2, 2, "x".repeat(WireEncoding.MAX_STRING_BYTES));
  }

  @Test
  void longErrorMessagesAreTruncatedAtACharacterBoundary() {
    String ascii = "a".repeat(70_000);
    assertEquals(WireEncoding.MAX_STRING_BYTES, WireEncoding.truncateText(ascii).length());

    // Two-byte characters: 32767 of them fill 65534 bytes, one more would not fit.
    String twoByte = "é".repeat(40_000);
    String cut = WireEncoding.truncateText(twoByte);
    assertEquals(32_767, cut.length());
    assertEquals(65_534, ByteBufUtil.utf8Bytes(cut));

    // A surrogate pair is one 4-byte character and is never split.
    String pairs = "a" + "\uD83D\uDE00".repeat(20_000);
    String cutPairs = WireEncoding.truncateText(pairs);
    assertEquals(1 + 2 * 16_383, cutPairs.length());
    assertTrue(Character.isLowSurrogate(cutPairs.charAt(cutPairs.length() - 1)));
    assertTrue(ByteBufUtil.utf8Bytes(cutPairs) <= WireEncoding.MAX_STRING_BYTES);

    assertEquals("", WireEncoding.truncateText(null));
    assertEquals("short", WireEncoding.truncateText("short"));
  }

  @Test
  void responsesCarryTruncatedErrorMessagesThatRoundTrip() {
    StatusResponse response =
        StatusResponse.error(1, StatusCode.INTERNAL_ERROR, "€".repeat(30_000));
    assertEquals(21_845, response.errorMessage().length());
    byte[] wire = WireTestSupport.encode(response, false);
    ByteBuf buf = Unpooled.wrappedBuffer(wire, 5, wire.length - 5);
    assertEquals(response, StatusResponse.decode(buf));
  }

  @Test
  void arraysRoundTripAndGarbledCountsAreRejectedBeforeAllocating() {
    ByteBuf buf = Unpooled.buffer();
    try {
      long[] longs = {Long.MIN_VALUE, 0, 5, Long.MAX_VALUE};
      int[] ints = {Integer.MIN_VALUE, -1, 0, 1};
      WireEncoding.writeLongArray(buf, longs);
      WireEncoding.writeIntArray(buf, ints);
      assertEquals(
          WireEncoding.longArrayLength(longs) + WireEncoding.intArrayLength(ints),
          buf.readableBytes());
      assertArrayEquals(longs, WireEncoding.readLongArray(buf));
      assertArrayEquals(ints, WireEncoding.readIntArray(buf));

      buf.clear().writeInt(-1);
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readLongArray(buf));
      buf.clear().writeInt(2).writeLong(1).writeInt(7);
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readLongArray(buf));
      buf.clear().writeInt(Integer.MAX_VALUE).writeInt(1);
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readIntArray(buf));
      buf.clear().writeShort(3).writeShort(0).writeShort(0);
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readStringList(buf));
    } finally {
      buf.release();
    }
  }

  @Test
  void booleansAndEnumsAcceptOnlyTheirCodes() {
    ByteBuf buf = Unpooled.buffer().writeByte(0).writeByte(1).writeByte(2).writeByte(-1);
    try {
      assertFalse(WireEncoding.readBoolean(buf));
      assertTrue(WireEncoding.readBoolean(buf));
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readBoolean(buf));
      assertThrows(CorruptFrameException.class, () -> WireEncoding.readBoolean(buf));
    } finally {
      buf.release();
    }
    for (ServerState state : ServerState.values()) {
      assertEquals(state, ServerState.fromCode(state.code()));
    }
    assertThrows(CorruptFrameException.class, () -> ServerState.fromCode((byte) 3));
    assertThrows(CorruptFrameException.class, () -> ServerState.fromCode((byte) -1));
    for (StatusCode status : StatusCode.values()) {
      assertEquals(status, StatusCode.fromCode(status.code()));
    }
    assertEquals(StatusCode.CORRUPT_BLOCK, StatusCode.fromCode((byte) 18));
    assertEquals(StatusCode.ACCESS_DENIED, StatusCode.fromCode((byte) 20));
    assertThrows(CorruptFrameException.class, () -> StatusCode.fromCode((byte) 21));
    assertThrows(CorruptFrameException.class, () -> StatusCode.fromCode((byte) 31));
    assertThrows(CorruptFrameException.class, () -> StatusCode.fromCode((byte) 32));
    assertThrows(CorruptFrameException.class, () -> StatusCode.fromCode((byte) -128));
  }

  @Test
  void serverAddressChecksItsPort() {
    assertThrows(IllegalArgumentException.class, () -> new ServerAddress("s", "h", 65536));
    assertThrows(IllegalArgumentException.class, () -> new ServerAddress("s", "h", -1));
    ServerAddress address = new ServerAddress("s", "h", 65535);
    ByteBuf buf = Unpooled.buffer();
    try {
      address.encode(buf);
      assertEquals(address.encodedLength(), buf.readableBytes());
      assertEquals(address, ServerAddress.decode(buf));
    } finally {
      buf.release();
    }
  }
}
