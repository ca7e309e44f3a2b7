package io.sluice.common.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexEntryTest {

  @Test
  void layoutIsThirtyTwoBytesBigEndian() {
    IndexEntry entry =
        new IndexEntry(
            0x0102030405060708L,
            0x0A0B0C0D,
            0x11121314,
            0xF1F2F3F4,
            0x2122232425262728L,
            0x31323334);
    ByteBuffer buf = ByteBuffer.allocate(IndexEntry.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    entry.writeTo(buf);
    assertEquals(IndexEntry.SIZE, buf.position());
    assertEquals(ByteOrder.LITTLE_ENDIAN, buf.order(), "the caller's byte order is restored");

    ByteBuffer expected =
        ByteBuffer.allocate(IndexEntry.SIZE)
            .putLong(0x0102030405060708L)
            .putInt(0x0A0B0C0D)
            .putInt(0x11121314)
            .putInt(0xF1F2F3F4)
            .putLong(0x2122232425262728L)
            .putInt(0x31323334);
    assertEquals(expected.flip(), buf.flip());
  }

  @Test
  void roundTripsThroughBothReaders() throws IOException {
    IndexEntry[] entries = {
      new IndexEntry(0, 10, 30, -1, -5L, 0),
      new IndexEntry(10, 0, 0, 0, Long.MIN_VALUE, Integer.MAX_VALUE),
      new IndexEntry(
          Long.MAX_VALUE - Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, 42, 7, 8),
    };
    ByteBuffer buf = ByteBuffer.allocate(entries.length * IndexEntry.SIZE);
    for (IndexEntry entry : entries) {
      entry.writeTo(buf);
    }
    buf.flip();
    ByteBuf netty = Unpooled.wrappedBuffer(buf.duplicate());
    for (IndexEntry entry : entries) {
      assertEquals(entry, IndexEntry.readFrom(buf));
    }
    assertEquals(0, buf.remaining());
    int readerIndex = netty.readerIndex();
    assertEquals(List.of(entries), IndexEntry.decodeAll(netty));
    assertEquals(readerIndex, netty.readerIndex(), "decodeAll does not move the indexes");
  }

  @Test
  void decodeAllReadsFromTheReaderIndexAndAcceptsNothing() throws IOException {
    ByteBuffer one = ByteBuffer.allocate(IndexEntry.SIZE);
    new IndexEntry(8, 1, 1, 1, 1, 1).writeTo(one);
    ByteBuf buf = Unpooled.buffer().writeInt(42).writeBytes(one.flip());
    buf.skipBytes(4);
    assertEquals(List.of(new IndexEntry(8, 1, 1, 1, 1, 1)), IndexEntry.decodeAll(buf));
    assertEquals(List.of(), IndexEntry.decodeAll(Unpooled.EMPTY_BUFFER));
  }

  @Test
  void rejectsShortInputPartialEntriesAndOutOfRangeFields() {
    ByteBuffer shortBuf = ByteBuffer.allocate(IndexEntry.SIZE - 1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> IndexEntry.readFrom(shortBuf));
    assertTrue(e.getMessage().contains("31"), e.getMessage());
    assertEquals(0, shortBuf.position(), "nothing consumed");

    IOException partial =
        assertThrows(
            IOException.class,
            () -> IndexEntry.decodeAll(Unpooled.buffer().writeZero(IndexEntry.SIZE + 1)));
    assertTrue(partial.getMessage().contains("33 bytes"), partial.getMessage());

    assertThrows(
        IOException.class,
        () ->
            IndexEntry.decodeAll(
                Unpooled.buffer()
                    .writeLong(0)
                    .writeInt(-1)
                    .writeInt(0)
                    .writeInt(0)
                    .writeLong(0)
                    .writeInt(0)));
    assertThrows(IllegalArgumentException.class, () -> new IndexEntry(-1, 0, 0, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new IndexEntry(0, 0, -1, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new IndexEntry(0, 0, 0, 0, 0, -1));
    assertThrows(
        IllegalArgumentException.class, () -> new IndexEntry(Long.MAX_VALUE - 1, 10, 0, 0, 0, 0));
  }

  @Test
  void readFromKeepsTheCallersByteOrder() {
    ByteBuffer buf = ByteBuffer.allocate(IndexEntry.SIZE);
    new IndexEntry(1, 2, 3, 4, 5, 6).writeTo(buf);
    buf.flip().order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(new IndexEntry(1, 2, 3, 4, 5, 6), IndexEntry.readFrom(buf));
    assertSame(ByteOrder.LITTLE_ENDIAN, buf.order());
  }
}
