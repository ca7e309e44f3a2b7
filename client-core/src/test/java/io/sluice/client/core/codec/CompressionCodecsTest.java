package io.sluice.client.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CompressionCodecsTest {

  @Test
  void createsTheCodecOfEachKind() {
    for (CodecKind kind : CodecKind.values()) {
      CompressionCodec codec = CompressionCodecs.create(kind, 3);
      assertEquals(kind.codecName(), codec.name());
      assertEquals(kind, CodecKind.forName(codec.name()));
    }
    assertInstanceOf(Lz4Codec.class, CompressionCodecs.create(CodecKind.LZ4, 3));
    assertEquals(3, ((ZstdCodec) CompressionCodecs.create(CodecKind.ZSTD, 3)).level());
    assertEquals(ZstdCodec.DEFAULT_LEVEL, new ZstdCodec().level());
  }

  @Test
  void zstdLevelsOutsideZstdsRangeAreRejected() {
    assertThrows(
        IllegalArgumentException.class, () -> CompressionCodecs.create(CodecKind.ZSTD, 23));
    assertThrows(
        IllegalArgumentException.class,
        () -> CompressionCodecs.create(CodecKind.ZSTD, Integer.MIN_VALUE));
    CompressionCodecs.create(CodecKind.LZ4, 23);
  }

  @Test
  void lz4ChunkSizesOutsideWhatSparksStreamTakesAreRejected() {
    assertEquals(
        65_536, ((Lz4Codec) CompressionCodecs.create(CodecKind.LZ4, 1, 65_536)).chunkSize());
    assertThrows(
        IllegalArgumentException.class,
        () -> CompressionCodecs.create(CodecKind.LZ4, 1, Lz4Codec.MIN_CHUNK_SIZE - 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> CompressionCodecs.create(CodecKind.LZ4, 1, Lz4Codec.MAX_CHUNK_SIZE + 1));
    CompressionCodecs.create(CodecKind.ZSTD, 1, 1);
  }

  @Test
  void kindsAreFoundByNameInAnyCase() {
    assertEquals(CodecKind.LZ4, CodecKind.forName("LZ4"));
    assertEquals(CodecKind.ZSTD, CodecKind.forName("zstd"));
    assertEquals(CodecKind.NONE, CodecKind.forName("None"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CodecKind.forName("snappy"));
    assertTrue(
        e.getMessage().contains("'snappy'") && e.getMessage().contains("[lz4, zstd, none]"),
        e.getMessage());
  }
}
