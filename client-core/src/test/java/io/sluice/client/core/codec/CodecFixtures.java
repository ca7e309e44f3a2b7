package io.sluice.client.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Named;

/** Codecs under test and the data they are tested on. */
final class CodecFixtures {
  private CodecFixtures() {}

  static List<Named<CompressionCodec>> codecs() {
    return List.of(
        Named.of("lz4 (fastest)", new Lz4Codec()),
        Named.of(
            "lz4 (pure Java)",
            new Lz4Codec(LZ4Factory.fastestJavaInstance(), Lz4Codec.DEFAULT_CHUNK_SIZE)),
        Named.of("lz4 in 100-byte chunks", new Lz4Codec(100)),
        Named.of("zstd level 1", new ZstdCodec()),
        Named.of("zstd level -5", new ZstdCodec(-5)),
        Named.of("none", NoneCodec.INSTANCE));
  }

  static Stream<Named<CompressionCodec>> compressingCodecs() {
    return codecs().stream().filter(named -> !(named.getPayload() instanceof NoneCodec));
  }

  static byte[] text(int length, long seed) {
    Random random = new Random(seed);
    String[] words = {
      "shuffle",
      "block",
      "partition",
      "map",
      "reduce",
      "spark",
      "sluice",
      "server",
      "record",
      "key",
      "value",
      "\n",
      ", ",
      "0",
      "42",
      "2024-11-22"
    };
    StringBuilder sb = new StringBuilder(length + 16);
    while (sb.length() < length) {
      sb.append(words[random.nextInt(words.length)]).append(' ');
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.US_ASCII);
    return java.util.Arrays.copyOf(bytes, length);
  }

  static byte[] random(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  static List<Named<byte[]>> smallData() {
    return List.of(
        Named.of("empty", new byte[0]),
        Named.of("one byte", new byte[] {42}),
        Named.of("100 KiB text", text(100 * 1024, 1)),
        Named.of("64 KiB random", random(64 * 1024, 2)),
        Named.of("256 KiB zeros", new byte[256 * 1024]));
  }

  static byte[] readable(ByteBuf buf) {
    return ByteBufUtil.getBytes(buf);
  }
}
