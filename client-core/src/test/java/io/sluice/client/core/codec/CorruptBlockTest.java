package io.sluice.client.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decompression of damaged blocks ends in a CorruptBlockException or a block of the right length,
 * nothing else.
 */
class CorruptBlockTest {
  private static final int MUTATIONS = 4000;
  private static final List<BufferKind> KINDS =
      List.of(
          BufferKind.HEAP,
          BufferKind.POOLED_DIRECT,
          BufferKind.COMPOSITE,
          BufferKind.DIRECT,
          BufferKind.READ_ONLY_HEAP);

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.sluice.client.core.codec.CodecFixtures#codecs")
  void wrongLengthsAreRejectedBeforeAnythingIsWritten(CompressionCodec codec) {
    for (byte[] data : List.of(new byte[0], CodecFixtures.text(20_000, 11), new byte[100_000])) {
      byte[] compressed = CompressionCodecRoundTripTest.compressOnHeap(codec, data);
      int length = data.length;
      for (int wrong :
          new int[] {
            length + 1,
            length - 1,
            length * 2 + 1,
            0,
            1,
            -1,
            Integer.MIN_VALUE,
            Integer.MAX_VALUE,
            Integer.MAX_VALUE - 8
          }) {
        if (wrong == length) {
          continue;
        }
        for (BufferKind kind : KINDS) {
          ByteBuf src = kind.holding(compressed);
          ByteBuf dst = BufferKind.POOLED_DIRECT.target();
          try {
            int capacityBefore = dst.capacity();
            CorruptBlockException e =
                assertThrows(
                    CorruptBlockException.class,
                    () -> codec.decompress(src, dst, wrong),
                    "length " + wrong + " for " + length);
            assertTrue(e.getMessage().contains(String.valueOf(wrong)), e.getMessage());
            assertUnmoved(src, compressed.length, dst);
            assertTrue(
                dst.capacity() <= Math.max(capacityBefore, 4L * length + 1024),
                "the target did not grow to a length the block cannot hold: " + dst.capacity());
          } finally {
            src.release();
            dst.release();
          }
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.sluice.client.core.codec.CodecFixtures#codecs")
  void randomDamageYieldsCorruptBlockExceptionOrTheRightLength(CompressionCodec codec) {
    byte[] data = new byte[24_000];
    System.arraycopy(CodecFixtures.text(16_000, 12), 0, data, 0, 16_000);
    System.arraycopy(CodecFixtures.random(4_000, 13), 0, data, 16_000, 4_000);
    byte[] compressed = CompressionCodecRoundTripTest.compressOnHeap(codec, data);
    Random random = new Random(codec.name().hashCode());
    int rejected = 0;
    for (int i = 0; i < MUTATIONS; i++) {
      int kindOfDamage = random.nextInt(Damage.values().length);
      Damage damage = Damage.values()[kindOfDamage];
      byte[] damaged = damage.apply(compressed, random);
      int length = random.nextInt(5) == 0 ? random.nextInt(2 * data.length) : data.length;
      BufferKind kind = KINDS.get(i % KINDS.size());
      ByteBuf src = kind.holding(damaged);
      ByteBuf dst = (i % 2 == 0 ? BufferKind.POOLED_DIRECT : BufferKind.HEAP).target();
      try {
        codec.decompress(src, dst, length);
        assertEquals(0, src.readableBytes());
        assertEquals(BufferKind.TARGET_PREFIX.length + length, dst.writerIndex());
      } catch (CorruptBlockException e) {
        rejected++;
        assertUnmoved(src, damaged.length, dst);
      } catch (Throwable t) {
        fail(
            "mutation "
                + i
                + " ("
                + damage
                + ", "
                + damaged.length
                + " bytes, length "
                + length
                + ", "
                + kind
                + ") threw "
                + t,
            t);
      } finally {
        src.release();
        dst.release();
      }
    }
    assertTrue(
        rejected > MUTATIONS / 4, "only " + rejected + " of " + MUTATIONS + " were rejected");
  }

  private static void assertUnmoved(ByteBuf src, int srcLength, ByteBuf dst) {
    assertEquals(srcLength, src.readableBytes(), "the source was not consumed");
    assertEquals(BufferKind.TARGET_PREFIX.length, dst.writerIndex(), "nothing was appended");
  }

  private enum Damage {
    FLIP_BIT {
      @Override
      byte[] apply(byte[] in, Random random) {
        byte[] out = in.clone();
        if (out.length > 0) {
          out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return out;
      }
    },
    REWRITE_BYTES {
      @Override
      byte[] apply(byte[] in, Random random) {
        byte[] out = in.clone();
        for (int n = 1 + random.nextInt(8); n > 0 && out.length > 0; n--) {
          out[random.nextInt(out.length)] = (byte) random.nextInt(256);
        }
        return out;
      }
    },
    REWRITE_HEADER {
      @Override
      byte[] apply(byte[] in, Random random) {
        byte[] out = in.clone();
        int end = Math.min(out.length, 20);
        if (end > 0) {
          out[random.nextInt(end)] = (byte) random.nextInt(256);
        }
        return out;
      }
    },
    TRUNCATE {
      @Override
      byte[] apply(byte[] in, Random random) {
        return Arrays.copyOf(in, in.length == 0 ? 0 : random.nextInt(in.length));
      }
    },
    APPEND {
      @Override
      byte[] apply(byte[] in, Random random) {
        byte[] out = Arrays.copyOf(in, in.length + 1 + random.nextInt(16));
        for (int i = in.length; i < out.length; i++) {
          out[i] = (byte) random.nextInt(256);
        }
        return out;
      }
    },
    GARBAGE {
      @Override
      byte[] apply(byte[] in, Random random) {
        byte[] out = new byte[random.nextInt(2 * in.length + 2)];
        random.nextBytes(out);
        return out;
      }
    },
    CUT_RANGE {
      @Override
      byte[] apply(byte[] in, Random random) {
        if (in.length < 2) {
          return new byte[0];
        }
        int from = random.nextInt(in.length - 1);
        int to = from + 1 + random.nextInt(Math.min(64, in.length - from - 1) + 1);
        byte[] out = new byte[in.length - (to - from)];
        System.arraycopy(in, 0, out, 0, from);
        System.arraycopy(in, to, out, from, in.length - to);
        return out;
      }
    },
    REPEAT_RANGE {
      @Override
      byte[] apply(byte[] in, Random random) {
        if (in.length == 0) {
          return new byte[] {0};
        }
        int from = random.nextInt(in.length);
        int count = 1 + random.nextInt(Math.min(64, in.length - from));
        byte[] out = new byte[in.length + count];
        System.arraycopy(in, 0, out, 0, from + count);
        System.arraycopy(in, from, out, from + count, in.length - from);
        return out;
      }
    },
    ZERO_RANGE {
      @Override
      byte[] apply(byte[] in, Random random) {
        byte[] out = in.clone();
        if (out.length > 0) {
          int from = random.nextInt(out.length);
          Arrays.fill(out, from, Math.min(out.length, from + 1 + random.nextInt(32)), (byte) 0);
        }
        return out;
      }
    };

    abstract byte[] apply(byte[] in, Random random);
  }
}
