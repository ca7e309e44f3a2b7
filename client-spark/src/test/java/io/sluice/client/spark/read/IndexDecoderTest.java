package io.sluice.client.spark.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexDecoderTest {

  /** Writes entries the way the server's IndexEntry does: 36 bytes, big-endian. */
  private static ByteBuf index(long[]... entries) {
    ByteBuf buf = Unpooled.buffer();
    for (long[] e : entries) {
      buf.writeLong(e[0]).writeInt((int) e[1]).writeInt((int) e[2]).writeInt((int) e[3])
          .writeLong(e[4]).writeLong(e[5]);
    }
    return buf;
  }

  @Test
  void decodesEveryFieldOfEachEntryInOrder() throws IOException {
    ByteBuf buf = index(
        new long[] {0, 100, 250, 0xCAFEBABEL, 1L << 40, 7},
        new long[] {100, 3, 0, -1, Long.MAX_VALUE, Long.MAX_VALUE},
        new long[] {(1L << 33) + 5, Integer.MAX_VALUE, Integer.MAX_VALUE, 12, 0, 0});
    int readerIndex = buf.readerIndex();

    List<IndexedBlock> entries = IndexDecoder.decode(buf);

    assertEquals(List.of(
        new IndexedBlock(0, 100, 250, 0xCAFEBABE, 1L << 40, 7),
        new IndexedBlock(100, 3, 0, -1, Long.MAX_VALUE, Long.MAX_VALUE),
        new IndexedBlock((1L << 33) + 5, Integer.MAX_VALUE, Integer.MAX_VALUE, 12, 0, 0)),
        entries);
    assertEquals(readerIndex, buf.readerIndex(), "the buffer's indexes do not move");
    assertEquals(103, entries.get(1).end());
  }

  @Test
  void readsFromTheReaderIndex() throws IOException {
    ByteBuf buf = Unpooled.buffer().writeInt(42);
    buf.writeBytes(index(new long[] {8, 1, 1, 1, 1, 1}));
    buf.skipBytes(4);
    assertEquals(List.of(new IndexedBlock(8, 1, 1, 1, 1, 1)), IndexDecoder.decode(buf));
  }

  @Test
  void anEmptyIndexHasNoEntries() throws IOException {
    assertEquals(List.of(), IndexDecoder.decode(Unpooled.EMPTY_BUFFER));
  }

  @Test
  void rejectsAPartialEntry() {
    ByteBuf buf = index(new long[] {0, 1, 1, 1, 1, 1}).writeByte(0);
    IOException e = assertThrows(IOException.class, () -> IndexDecoder.decode(buf));
    assertTrue(e.getMessage().contains("37 bytes"), e.getMessage());
  }

  @Test
  void rejectsNegativeOrOverflowingFields() {
    assertThrows(IOException.class,
        () -> IndexDecoder.decode(index(new long[] {-1, 1, 1, 1, 1, 1})));
    assertThrows(IOException.class,
        () -> IndexDecoder.decode(index(new long[] {0, -1, 1, 1, 1, 1})));
    assertThrows(IOException.class,
        () -> IndexDecoder.decode(index(new long[] {0, 1, -5, 1, 1, 1})));
    assertThrows(IOException.class,
        () -> IndexDecoder.decode(index(new long[] {Long.MAX_VALUE - 1, 10, 1, 1, 1, 1})));
  }
}
