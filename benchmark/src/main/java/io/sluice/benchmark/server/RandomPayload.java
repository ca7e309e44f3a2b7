package io.sluice.benchmark.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * Incompressible bytes that every pushed block is cut from. A block's slice and length follow from
 * its identity alone (shuffle, map attempt, partition, sequence), so that a reader can check the
 * content it got without being told what was pushed, and a block read back under another identity
 * does not match. Shared by all clients, read-only once built.
 */
final class RandomPayload implements AutoCloseable {
  static final int MIN_BLOCK_BYTES = 64 << 10;
  static final int MAX_BLOCK_BYTES = 256 << 10;

  private final ByteBuf bytes;

  RandomPayload(int size, long seed) {
    byte[] random = new byte[size];
    new Random(seed).nextBytes(random);
    this.bytes = Unpooled.directBuffer(size, size).writeBytes(random);
  }

  /** The block's bytes; the caller owns the returned reference. */
  ByteBuf block(int shuffle, long attempt, int partition, int sequence) {
    SplittableRandom r = random(shuffle, attempt, partition, sequence);
    int length = length(r);
    return bytes.retainedSlice(offset(r, length), length);
  }

  /** Whether {@code data} is exactly the block's bytes. */
  boolean matches(ByteBuf data, int shuffle, long attempt, int partition, int sequence) {
    SplittableRandom r = random(shuffle, attempt, partition, sequence);
    int length = length(r);
    if (data.readableBytes() != length) {
      return false;
    }
    // Piece by piece: a block read from disk is often a slice across the reader's received
    // buffers, and comparing it long by long through that composite view cost the benchmark's
    // clients more CPU than everything else they do while reading.
    int at = offset(r, length);
    for (ByteBuffer piece : data.nioBuffers()) {
      int n = piece.remaining();
      if (!piece.equals(bytes.nioBuffer(at, n))) {
        return false;
      }
      at += n;
    }
    return true;
  }

  private static int length(SplittableRandom r) {
    return r.nextInt(MIN_BLOCK_BYTES, MAX_BLOCK_BYTES + 1);
  }

  private int offset(SplittableRandom r, int length) {
    return r.nextInt(bytes.capacity() - length + 1);
  }

  private static SplittableRandom random(int shuffle, long attempt, int partition, int sequence) {
    return new SplittableRandom(
        shuffle * 0x9E3779B97F4A7C15L
            + attempt * 0xC2B2AE3D27D4EB4FL
            + partition * 0x165667B19E3779F9L
            + sequence);
  }

  @Override
  public void close() {
    bytes.release();
  }
}
