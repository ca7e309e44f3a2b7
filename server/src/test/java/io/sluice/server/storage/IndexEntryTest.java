package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class IndexEntryTest {

  @Test
  void layoutIsThirtySixBytesBigEndian() {
    IndexEntry entry = new IndexEntry(0x0102030405060708L, 0x0A0B0C0D, 0x11121314, 0xF1F2F3F4,
        0x2122232425262728L, 0x3132333435363738L);
    ByteBuffer buf = ByteBuffer.allocate(IndexEntry.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    entry.writeTo(buf);
    assertEquals(IndexEntry.SIZE, buf.position());
    assertEquals(ByteOrder.LITTLE_ENDIAN, buf.order(), "the caller's byte order is restored");

    ByteBuffer expected = ByteBuffer.allocate(IndexEntry.SIZE)
        .putLong(0x0102030405060708L).putInt(0x0A0B0C0D).putInt(0x11121314).putInt(0xF1F2F3F4)
        .putLong(0x2122232425262728L).putLong(0x3132333435363738L);
    assertEquals(expected.flip(), buf.flip());
  }

  @Test
  void roundTripsSeveralEntries() {
    ByteBuffer buf = ByteBuffer.allocate(3 * IndexEntry.SIZE);
    IndexEntry[] entries = {
      new IndexEntry(0, 10, 30, -1, -5L, 0),
      new IndexEntry(10, 0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE),
      new IndexEntry(Long.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, 42, 7, 8),
    };
    for (IndexEntry entry : entries) {
      entry.writeTo(buf);
    }
    buf.flip();
    for (IndexEntry entry : entries) {
      assertEquals(entry, IndexEntry.readFrom(buf));
    }
    assertEquals(0, buf.remaining());
  }

  @Test
  void rejectsShortInputAndNegativeFields() {
    ByteBuffer shortBuf = ByteBuffer.allocate(IndexEntry.SIZE - 1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> IndexEntry.readFrom(shortBuf));
    assertTrue(e.getMessage().contains("35"), e.getMessage());
    assertEquals(0, shortBuf.position(), "nothing consumed");

    ByteBuffer negative = ByteBuffer.allocate(IndexEntry.SIZE)
        .putLong(0).putInt(-1).putInt(0).putInt(0).putLong(0).putLong(0).flip();
    assertThrows(IllegalArgumentException.class, () -> IndexEntry.readFrom(negative));
    assertThrows(IllegalArgumentException.class, () -> new IndexEntry(-1, 0, 0, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new IndexEntry(0, 0, -1, 0, 0, 0));
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
