package io.sluice.client.spark.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.codec.CodecKind;
import io.sluice.common.codec.CompressionCodec;
import io.sluice.common.codec.CompressionCodecs;
import io.sluice.common.codec.CorruptBlockException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BlockDecoderTest {
  private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static final byte[] TEXT = "the quick brown fox jumps over the lazy dog, again and again"
      .repeat(50).getBytes(StandardCharsets.UTF_8);

  private FetchedBlock block;

  /** A block as a writer makes it: compressed with {@code codec}, CRC32C over the result. */
  private static FetchedBlock written(CompressionCodec codec, byte[] content) {
    ByteBuf compressed = ALLOC.directBuffer();
    codec.compress(Unpooled.wrappedBuffer(content), compressed);
    return new FetchedBlock(3, 77, 1234, content.length, Crc32c.of(compressed), compressed);
  }

  @AfterEach
  void releaseBlock() {
    if (block != null) {
      assertEquals(1, block.data().refCnt(), "decoding keeps the block's reference");
      block.release();
    }
  }

  @Test
  void verifiesAndDecompressesEachCodec() throws CorruptBlockException {
    for (CodecKind kind : CodecKind.values()) {
      CompressionCodec codec = CompressionCodecs.create(kind, 1);
      FetchedBlock b = written(codec, TEXT);
      ByteBuf out = new BlockDecoder(codec, ALLOC).decode(b);
      try {
        assertArrayEquals(TEXT, ByteBufUtil.getBytes(out), kind.toString());
      } finally {
        out.release();
      }
      assertEquals(1, b.data().refCnt(), "decoding keeps the block's reference");
      b.release();
    }
  }

  @Test
  void aFlippedBitIsACrcMismatch() {
    CompressionCodec lz4 = CompressionCodecs.create(CodecKind.LZ4, 1);
    block = written(lz4, TEXT);
    ByteBuf data = block.data();
    data.setByte(data.readerIndex() + 5, data.getByte(data.readerIndex() + 5) ^ 0x10);

    CorruptBlockException e = assertThrows(CorruptBlockException.class,
        () -> new BlockDecoder(lz4, ALLOC).decode(block));
    assertTrue(e.getMessage().contains("CRC32C mismatch"), e.getMessage());
    assertTrue(e.getMessage().contains("map attempt 77"), e.getMessage());
  }

  @Test
  void bytesThatDoNotDecompressAreCorruptEvenWithAMatchingCrc() {
    CompressionCodec lz4 = CompressionCodecs.create(CodecKind.LZ4, 1);
    ByteBuf garbage = ALLOC.directBuffer().writeBytes(new byte[] {(byte) 0xF0, 1, 2, 3});
    block = new FetchedBlock(3, 77, 1234, 500, Crc32c.of(garbage), garbage);
    assertThrows(CorruptBlockException.class, () -> new BlockDecoder(lz4, ALLOC).decode(block));
  }

  @Test
  void anUncompressedLengthTheBytesCannotHoldIsCorrupt() {
    CompressionCodec lz4 = CompressionCodecs.create(CodecKind.LZ4, 1);
    FetchedBlock honest = written(lz4, TEXT);
    block = new FetchedBlock(3, 77, 1234, Integer.MAX_VALUE, honest.crc32c(),
        honest.data().retain());
    honest.release();
    assertThrows(CorruptBlockException.class, () -> new BlockDecoder(lz4, ALLOC).decode(block));
  }

  @Test
  void anUncompressedBlockMustHaveItsClaimedLength() {
    CompressionCodec none = CompressionCodecs.create(CodecKind.NONE, 1);
    ByteBuf data = ALLOC.directBuffer().writeBytes(TEXT);
    block = new FetchedBlock(3, 77, 1234, TEXT.length + 1, Crc32c.of(data), data);
    assertThrows(CorruptBlockException.class, () -> new BlockDecoder(none, ALLOC).decode(block));
  }
}
