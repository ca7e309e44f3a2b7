package io.sluice.client.core.codec;

import java.util.Objects;

/** Creates the codec for a {@link CodecKind}. */
public final class CompressionCodecs {
  private CompressionCodecs() {}

  /**
   * The codec of {@code kind}, lz4 in Spark's default chunks. {@code zstdLevel} is used by {@link
   * CodecKind#ZSTD} only.
   *
   * @throws IllegalArgumentException if {@code kind} is ZSTD and the level is out of zstd's range
   */
  public static CompressionCodec create(CodecKind kind, int zstdLevel) {
    return create(kind, zstdLevel, Lz4Codec.DEFAULT_CHUNK_SIZE);
  }

  /**
   * The codec of {@code kind}: {@code zstdLevel} is used by {@link CodecKind#ZSTD} only, {@code
   * lz4ChunkSize} by {@link CodecKind#LZ4} only.
   *
   * @throws IllegalArgumentException if the setting the kind uses is out of its range
   */
  public static CompressionCodec create(CodecKind kind, int zstdLevel, int lz4ChunkSize) {
    Objects.requireNonNull(kind, "kind");
    return switch (kind) {
      case LZ4 -> new Lz4Codec(lz4ChunkSize);
      case ZSTD -> new ZstdCodec(zstdLevel);
      case NONE -> NoneCodec.INSTANCE;
    };
  }
}
