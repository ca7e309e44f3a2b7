package io.sluice.benchmark.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.common.checksum.Crc32c;
import java.util.Random;

/**
 * Incompressible bytes that every pushed block is cut from: a block is a slice at a random offset,
 * so blocks differ in content and a block read back under another block's id fails its checksum.
 * Shared by all pushing clients, read-only once built.
 */
final class RandomPayload implements AutoCloseable {
  private final ByteBuf bytes;

  RandomPayload(int size, long seed) {
    byte[] random = new byte[size];
    new Random(seed).nextBytes(random);
    this.bytes = Unpooled.directBuffer(size, size).writeBytes(random);
  }

  int size() {
    return bytes.capacity();
  }

  /** A slice of {@code length} bytes at {@code offset}; the caller owns the returned reference. */
  ByteBuf retainedSlice(int offset, int length) {
    return bytes.retainedSlice(offset, length);
  }

  int crc32c(int offset, int length) {
    return Crc32c.of(bytes, offset, length);
  }

  @Override
  public void close() {
    bytes.release();
  }
}
