package io.sluice.client.core.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.client.core.codec.CodecKind;
import io.sluice.client.core.codec.CompressionCodec;
import io.sluice.client.core.codec.CompressionCodecs;
import io.sluice.client.core.codec.CorruptBlockException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BlockDecoderTest {
  private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static final byte[] TEXT =
      "the quick brown fox jumps over the lazy dog, again and again"
          .repeat(50)
          .getBytes(StandardCharsets.UTF_8);

  private FetchedBlock block;

  /** A block as a writer makes it: compressed with {@code codec}. */
  private static FetchedBlock written(CompressionCodec codec, byte[] content) {
    ByteBuf compressed = ALLOC.directBuffer();
    codec.compress(Unpooled.wrappedBuffer(content), compressed);
    return new FetchedBlock(3, 77, 1234, content.length, compressed);
  }

  @AfterEach
  void releaseBlock() {
    if (block != null) {
      assertEquals(1, block.data().refCnt(), "decoding keeps the block's reference");
      block.release();
    }
  }

  @Test
  void decompressesEachCodec() throws CorruptBlockException {
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
  void crcIsNotTheDecodersConcernAnyMore() throws CorruptBlockException {
    // The reader verifies CRC32C before it queues a block (see PartitionReaderTest); the decoder
    // only decompresses, so an uncompressed block with a flipped bit passes through unchanged.
    CompressionCodec none = CompressionCodecs.create(CodecKind.NONE, 1);
    ByteBuf data = ALLOC.directBuffer().writeBytes(TEXT);
    data.setByte(5, data.getByte(5) ^ 0x10);
    block = new FetchedBlock(3, 77, 1234, TEXT.length, data);
    ByteBuf out = new BlockDecoder(none, ALLOC).decode(block);
    try {
      assertEquals(ByteBufUtil.hexDump(data), ByteBufUtil.hexDump(out));
    } finally {
      out.release();
    }
  }

  @Test
  void aCorruptCompressedBlockNamesItsAttemptAndSequence() {
    CompressionCodec lz4 = CompressionCodecs.create(CodecKind.LZ4, 1);
    ByteBuf garbage = ALLOC.directBuffer().writeBytes(new byte[] {(byte) 0xF0, 1, 2, 3});
    block = new FetchedBlock(3, 77, 1234, 500, garbage);

    CorruptBlockException e =
        assertThrows(CorruptBlockException.class, () -> new BlockDecoder(lz4, ALLOC).decode(block));
    assertTrue(e.getMessage().contains("block 1234 of map attempt 77"), e.getMessage());
  }

  @Test
  void bytesThatDoNotDecompressAreCorrupt() {
    CompressionCodec lz4 = CompressionCodecs.create(CodecKind.LZ4, 1);
    ByteBuf garbage = ALLOC.directBuffer().writeBytes(new byte[] {(byte) 0xF0, 1, 2, 3});
    block = new FetchedBlock(3, 77, 1234, 500, garbage);
    assertThrows(CorruptBlockException.class, () -> new BlockDecoder(lz4, ALLOC).decode(block));
  }

  @Test
  void anUncompressedLengthTheBytesCannotHoldIsCorrupt() {
    CompressionCodec lz4 = CompressionCodecs.create(CodecKind.LZ4, 1);
    FetchedBlock honest = written(lz4, TEXT);
    block = new FetchedBlock(3, 77, 1234, Integer.MAX_VALUE, honest.data().retain());
    honest.release();
    assertThrows(CorruptBlockException.class, () -> new BlockDecoder(lz4, ALLOC).decode(block));
  }

  @Test
  void anUncompressedBlockMustHaveItsClaimedLength() {
    CompressionCodec none = CompressionCodecs.create(CodecKind.NONE, 1);
    ByteBuf data = ALLOC.directBuffer().writeBytes(TEXT);
    block = new FetchedBlock(3, 77, 1234, TEXT.length + 1, data);
    assertThrows(CorruptBlockException.class, () -> new BlockDecoder(none, ALLOC).decode(block));
  }
}
