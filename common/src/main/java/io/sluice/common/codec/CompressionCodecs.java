package io.sluice.common.codec;

import java.util.Objects;

/** Creates the codec for a {@link CodecKind}. */
public final class CompressionCodecs {
  private CompressionCodecs() {}

  /**
   * The codec of {@code kind}. {@code zstdLevel} is used by {@link CodecKind#ZSTD} only.
   *
   * @throws IllegalArgumentException if {@code kind} is ZSTD and the level is out of zstd's range
   */
  public static CompressionCodec create(CodecKind kind, int zstdLevel) {
    Objects.requireNonNull(kind, "kind");
    return switch (kind) {
      case LZ4 -> new Lz4Codec();
      case ZSTD -> new ZstdCodec(zstdLevel);
      case NONE -> NoneCodec.INSTANCE;
    };
  }
}
