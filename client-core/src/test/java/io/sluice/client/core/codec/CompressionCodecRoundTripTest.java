package io.sluice.client.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jpountz.lz4.LZ4BlockOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CompressionCodecRoundTripTest {

  static List<Arguments> codecsAndBufferKinds() {
    List<Arguments> arguments = new ArrayList<>();
    for (Named<CompressionCodec> codec : CodecFixtures.codecs()) {
      for (BufferKind source : BufferKind.values()) {
        for (BufferKind target : BufferKind.values()) {
          if (target.canBeTarget()) {
            arguments.add(Arguments.of(codec, source, target));
          }
        }
      }
    }
    return arguments;
  }

  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @MethodSource("codecsAndBufferKinds")
  void roundTripsEveryDataSetThroughEveryBufferKind(
      CompressionCodec codec, BufferKind source, BufferKind target) throws Exception {
    for (Named<byte[]> data : CodecFixtures.smallData()) {
      byte[] reference = compressOnHeap(codec, data.getPayload());
      byte[] compressed = compress(codec, data.getPayload(), source, target);
      assertArrayEquals(
          reference,
          compressed,
          data.getName() + ": the output does not depend on the buffers' kind");
      byte[] restored = decompress(codec, compressed, data.getPayload().length, source, target);
      assertArrayEquals(data.getPayload(), restored, data.getName());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.sluice.client.core.codec.CodecFixtures#codecs")
  void roundTripsFourMebibytes(CompressionCodec codec) throws Exception {
    byte[] mixed = new byte[4 << 20];
    System.arraycopy(CodecFixtures.random(2 << 20, 3), 0, mixed, 0, 2 << 20);
    System.arraycopy(CodecFixtures.text(2 << 20, 4), 0, mixed, 2 << 20, 2 << 20);
    for (byte[] data : List.of(mixed, new byte[4 << 20])) {
      for (BufferKind kind : List.of(BufferKind.HEAP, BufferKind.POOLED_DIRECT)) {
        byte[] compressed = compress(codec, data, kind, kind);
        assertArrayEquals(data, decompress(codec, compressed, data.length, kind, kind));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.sluice.client.core.codec.CodecFixtures#codecs")
  void incompressibleDataStaysWithinTheBound(CompressionCodec codec) {
    for (int length : new int[] {0, 1, 100, 65_536, 1 << 20}) {
      byte[] data = CodecFixtures.random(length, length);
      byte[] compressed = compressOnHeap(codec, data);
      assertTrue(
          compressed.length <= codec.maxCompressedLength(length),
          compressed.length + " > bound " + codec.maxCompressedLength(length));
    }
  }

  @Test
  void lz4ChunksAreStandardLz4BlockFormat() {
    byte[] data = CodecFixtures.text(50_000, 5);
    ByteBuf block = Unpooled.wrappedBuffer(compressOnHeap(new Lz4Codec(), data));
    byte[] restored = new byte[data.length];
    int produced = 0;
    while (block.isReadable()) {
      int stored = block.readInt() & 0x7fff_ffff;
      int chunk = block.readInt();
      byte[] payload = new byte[stored];
      block.readBytes(payload);
      LZ4Factory.safeInstance()
          .safeDecompressor()
          .decompress(payload, 0, stored, restored, produced, chunk);
      produced += chunk;
    }
    assertEquals(2, produced / Lz4Codec.DEFAULT_CHUNK_SIZE + 1, "two chunks");
    assertArrayEquals(data, restored);
  }

  /**
   * Map tasks report a block's length as Spark's LZ4 stream would have it; that stream (as Spark's
   * lz4 codec builds it) must hold exactly that many bytes, end mark included, for input that
   * compresses, input that does not, and input that ends on a chunk boundary or within one.
   */
  @Test
  void lz4ReframedLengthIsTheLengthOfSparksStream() throws IOException {
    List<byte[]> inputs =
        List.of(
            CodecFixtures.text(10, 1),
            CodecFixtures.text(5_000, 2),
            CodecFixtures.text(Lz4Codec.DEFAULT_CHUNK_SIZE, 3),
            CodecFixtures.text(200_000, 4),
            CodecFixtures.random(70_000, 5),
            mixed(300_000));
    for (byte[] data : inputs) {
      Lz4Codec codec = new Lz4Codec();
      byte[] block = compressOnHeap(codec, data);
      ByteArrayOutputStream spark = new ByteArrayOutputStream();
      try (OutputStream stream =
          new LZ4BlockOutputStream(
              spark,
              Lz4Codec.DEFAULT_CHUNK_SIZE,
              LZ4Factory.fastestInstance().fastCompressor(),
              XXHashFactory.fastestInstance().newStreamingHash32(0x9747b28c).asChecksum(),
              true)) {
        stream.write(data);
      }
      assertEquals(
          spark.size(),
          codec.reframedLength(block.length, data.length, 21) + 21,
          data.length + " bytes");
    }
  }

  private static byte[] mixed(int length) {
    byte[] data = CodecFixtures.text(length, 6);
    byte[] noise = CodecFixtures.random(length / 3, 7);
    System.arraycopy(noise, 0, data, length / 3, noise.length);
    return data;
  }

  @Test
  void zstdBlocksAreStandardFramesThatDeclareTheirSize() {
    byte[] data = CodecFixtures.text(50_000, 6);
    byte[] compressed = compressOnHeap(new ZstdCodec(), data);
    assertEquals(data.length, Zstd.getFrameContentSize(compressed));
    assertArrayEquals(data, Zstd.decompress(compressed, data.length));
  }

  @Test
  void zstdLevelChangesTheOutput() {
    byte[] data = CodecFixtures.text(200_000, 7);
    byte[] fast = compressOnHeap(new ZstdCodec(1), data);
    byte[] strong = compressOnHeap(new ZstdCodec(19), data);
    assertTrue(strong.length < fast.length, strong.length + " >= " + fast.length);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.sluice.client.core.codec.CodecFixtures#codecs")
  void oneCodecServesManyThreadsAtOnce(CompressionCodec codec) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> results = new ArrayList<>();
      for (int thread = 0; thread < 4; thread++) {
        int seed = thread;
        results.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    byte[] data = CodecFixtures.text(1000 + 997 * i, seed * 1000L + i);
                    BufferKind kind = i % 2 == 0 ? BufferKind.POOLED_DIRECT : BufferKind.HEAP;
                    byte[] compressed = compress(codec, data, kind, kind);
                    assertArrayEquals(data, decompress(codec, compressed, data.length, kind, kind));
                  }
                  return null;
                }));
      }
      for (Future<?> result : results) {
        result.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static byte[] compressOnHeap(CompressionCodec codec, byte[] data) {
    return compress(codec, data, BufferKind.HEAP, BufferKind.HEAP);
  }

  /** Compresses through buffers of the given kinds, checking how the indexes move. */
  static byte[] compress(
      CompressionCodec codec, byte[] data, BufferKind source, BufferKind target) {
    ByteBuf src = source.holding(data);
    ByteBuf dst = target.target();
    try {
      int written = codec.compress(src, dst);
      assertEquals(0, src.readableBytes(), "the source is consumed");
      assertEquals(BufferKind.TARGET_PREFIX.length + written, dst.writerIndex());
      assertTrue(written <= codec.maxCompressedLength(data.length));
      byte[] out = CodecFixtures.readable(dst);
      assertArrayEquals(
          BufferKind.TARGET_PREFIX,
          Arrays.copyOf(out, BufferKind.TARGET_PREFIX.length),
          "the prefix is kept");
      return Arrays.copyOfRange(out, BufferKind.TARGET_PREFIX.length, out.length);
    } finally {
      src.release();
      dst.release();
    }
  }

  /** Decompresses through buffers of the given kinds, checking how the indexes move. */
  static byte[] decompress(
      CompressionCodec codec, byte[] compressed, int length, BufferKind source, BufferKind target)
      throws CorruptBlockException {
    ByteBuf src = source.holding(compressed);
    ByteBuf dst = target.target();
    try {
      codec.decompress(src, dst, length);
      assertEquals(0, src.readableBytes(), "the source is consumed");
      assertEquals(BufferKind.TARGET_PREFIX.length + length, dst.writerIndex());
      byte[] out = CodecFixtures.readable(dst);
      assertArrayEquals(
          BufferKind.TARGET_PREFIX,
          Arrays.copyOf(out, BufferKind.TARGET_PREFIX.length),
          "the prefix is kept");
      return Arrays.copyOfRange(out, BufferKind.TARGET_PREFIX.length, out.length);
    } finally {
      src.release();
      dst.release();
    }
  }
}
