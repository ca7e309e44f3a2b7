package io.sluice.common.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jpountz.lz4.LZ4Factory;
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
      assertArrayEquals(reference, compressed,
          data.getName() + ": the output does not depend on the buffers' kind");
      byte[] restored = decompress(codec, compressed, data.getPayload().length, source, target);
      assertArrayEquals(data.getPayload(), restored, data.getName());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.sluice.common.codec.CodecFixtures#codecs")
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
  @MethodSource("io.sluice.common.codec.CodecFixtures#codecs")
  void incompressibleDataStaysWithinTheBound(CompressionCodec codec) {
    for (int length : new int[] {0, 1, 100, 65_536, 1 << 20}) {
      byte[] data = CodecFixtures.random(length, length);
      byte[] compressed = compressOnHeap(codec, data);
      assertTrue(compressed.length <= codec.maxCompressedLength(length),
          compressed.length + " > bound " + codec.maxCompressedLength(length));
    }
  }

  @Test
  void lz4BlocksAreStandardLz4BlockFormat() {
    byte[] data = CodecFixtures.text(50_000, 5);
    byte[] compressed = compressOnHeap(new Lz4Codec(), data);
    assertArrayEquals(data,
        LZ4Factory.safeInstance().safeDecompressor().decompress(compressed, data.length));
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
  @MethodSource("io.sluice.common.codec.CodecFixtures#codecs")
  void oneCodecServesManyThreadsAtOnce(CompressionCodec codec) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> results = new ArrayList<>();
      for (int thread = 0; thread < 4; thread++) {
        int seed = thread;
        results.add(pool.submit(() -> {
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
  static byte[] compress(CompressionCodec codec, byte[] data, BufferKind source, BufferKind target) {
    ByteBuf src = source.holding(data);
    ByteBuf dst = target.target();
    try {
      int written = codec.compress(src, dst);
      assertEquals(0, src.readableBytes(), "the source is consumed");
      assertEquals(BufferKind.TARGET_PREFIX.length + written, dst.writerIndex());
      assertTrue(written <= codec.maxCompressedLength(data.length));
      byte[] out = CodecFixtures.readable(dst);
      assertArrayEquals(BufferKind.TARGET_PREFIX,
          Arrays.copyOf(out, BufferKind.TARGET_PREFIX.length), "the prefix is kept");
      return Arrays.copyOfRange(out, BufferKind.TARGET_PREFIX.length, out.length);
    } finally {
      src.release();
      dst.release();
    }
  }

  /** Decompresses through buffers of the given kinds, checking how the indexes move. */
  static byte[] decompress(CompressionCodec codec, byte[] compressed, int length,
      BufferKind source, BufferKind target) throws CorruptBlockException {
    ByteBuf src = source.holding(compressed);
    ByteBuf dst = target.target();
    try {
      codec.decompress(src, dst, length);
      assertEquals(0, src.readableBytes(), "the source is consumed");
      assertEquals(BufferKind.TARGET_PREFIX.length + length, dst.writerIndex());
      byte[] out = CodecFixtures.readable(dst);
      assertArrayEquals(BufferKind.TARGET_PREFIX,
          Arrays.copyOf(out, BufferKind.TARGET_PREFIX.length), "the prefix is kept");
      return Arrays.copyOfRange(out, BufferKind.TARGET_PREFIX.length, out.length);
    } finally {
      src.release();
      dst.release();
    }
  }
}
