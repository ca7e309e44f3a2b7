package io.sluice.common.checksum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {

  @Test
  void knownVectors() {
    assertEquals(0xE3069283, Crc32c.of("123456789".getBytes(StandardCharsets.US_ASCII)));
    assertEquals(0, Crc32c.of(new byte[0]));
    // RFC 3720, appendix B.4.
    assertEquals(0x8A9136AA, Crc32c.of(new byte[32]));
    byte[] ones = new byte[32];
    Arrays.fill(ones, (byte) 0xFF);
    assertEquals(0x62A8AB43, Crc32c.of(ones));
    byte[] ascending = new byte[32];
    byte[] descending = new byte[32];
    for (int i = 0; i < 32; i++) {
      ascending[i] = (byte) i;
      descending[i] = (byte) (31 - i);
    }
    assertEquals(0x46DD794E, Crc32c.of(ascending));
    assertEquals(0x113FDB5C, Crc32c.of(descending));
  }

  @Test
  void knownVectorInEveryBufferKind() {
    byte[] digits = "123456789".getBytes(StandardCharsets.US_ASCII);
    for (ByteBuf buf : buffersHolding(digits)) {
      try {
        assertEquals(0xE3069283, Crc32c.of(buf), buf.toString());
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void everyBufferKindAndRangeAgreesWithTheArray() {
    Random random = new Random(7);
    for (int length : new int[] {0, 1, 7, 100, 4096, 100_003}) {
      byte[] data = new byte[length];
      random.nextBytes(data);
      int expected = Crc32c.of(data);
      for (ByteBuf buf : buffersHolding(data)) {
        try {
          int readerIndex = buf.readerIndex();
          int writerIndex = buf.writerIndex();
          assertEquals(expected, Crc32c.of(buf), buf.toString());
          assertEquals(readerIndex, buf.readerIndex(), "indexes do not move");
          assertEquals(writerIndex, buf.writerIndex(), "indexes do not move");
          for (int i = 0; i < 20 && length > 0; i++) {
            int from = random.nextInt(length);
            int count = random.nextInt(length - from + 1);
            assertEquals(
                Crc32c.of(data, from, count),
                Crc32c.of(buf, readerIndex + from, count),
                buf + " [" + from + ", +" + count + ")");
          }
        } finally {
          buf.release();
        }
      }
    }
  }

  @Test
  void piecewiseUpdatesEqualOneUpdate() {
    byte[] data = new byte[10_000];
    new Random(8).nextBytes(data);
    ByteBuf buf = Unpooled.directBuffer(data.length).writeBytes(data);
    try {
      CRC32C crc = new CRC32C();
      Crc32c.update(crc, buf, 0, 1234);
      Crc32c.update(crc, buf, 1234, 0);
      Crc32c.update(crc, buf, 1234, data.length - 1234);
      assertEquals(Crc32c.of(data), (int) crc.getValue());
    } finally {
      buf.release();
    }
  }

  @Test
  void rangesOutsideTheBufferAreRejected() {
    ByteBuf buf = Unpooled.buffer(16).writeZero(16);
    try {
      assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.of(buf, 10, 7));
      assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.of(buf, -1, 2));
      assertThrows(IndexOutOfBoundsException.class, () -> Crc32c.of(buf, 0, -1));
      assertThrows(
          IndexOutOfBoundsException.class,
          () -> Crc32c.of(buf, Integer.MAX_VALUE, Integer.MAX_VALUE));
      assertEquals(Crc32c.of(new byte[6]), Crc32c.of(buf, 10, 6));
    } finally {
      buf.release();
    }
  }

  /**
   * New buffers of every kind holding {@code data} as readable bytes, after 3 bytes already read.
   */
  private static List<ByteBuf> buffersHolding(byte[] data) {
    List<ByteBuf> buffers = new ArrayList<>();
    buffers.add(Unpooled.buffer().writeZero(3).writeBytes(data).skipBytes(3));
    buffers.add(Unpooled.directBuffer().writeZero(3).writeBytes(data).skipBytes(3));
    buffers.add(
        PooledByteBufAllocator.DEFAULT.heapBuffer().writeZero(3).writeBytes(data).skipBytes(3));
    buffers.add(
        PooledByteBufAllocator.DEFAULT.directBuffer().writeZero(3).writeBytes(data).skipBytes(3));
    buffers.add(Unpooled.buffer().writeZero(3).writeBytes(data).skipBytes(3).asReadOnly());
    buffers.add(Unpooled.wrappedBuffer(data).slice());
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    composite.addComponent(true, Unpooled.buffer().writeZero(3));
    int offset = 0;
    int piece = 1;
    while (offset < data.length) {
      int count = Math.min(piece, data.length - offset);
      ByteBuf component = piece % 2 == 0 ? Unpooled.directBuffer(count) : Unpooled.buffer(count);
      composite.addComponent(true, component.writeBytes(data, offset, count));
      composite.addComponent(true, Unpooled.buffer(0));
      offset += count;
      piece = piece * 3 + 1;
    }
    buffers.add(composite.skipBytes(3));
    return buffers;
  }
}
