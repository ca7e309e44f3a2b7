package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectReadTest {
  /** Three pieces and an unaligned tail. */
  private static final int FILE_BYTES = 3 * DirectRead.PIECE_BYTES + 12_345;

  private final ByteBufAllocator allocator = new PooledByteBufAllocator(true);

  @TempDir Path dir;
  private Path file;
  private byte[] content;

  @BeforeEach
  void writeFile() throws IOException {
    assumeTrue(DirectRead.SUPPORTED, "Netty has no access to buffers' memory addresses here");
    assumeTrue(Blocks.directIoWorks(dir), "no O_DIRECT on " + dir);
    content = new byte[FILE_BYTES];
    new Random(7).nextBytes(content);
    file = dir.resolve("0-0.data");
    Files.write(file, content);
  }

  @Test
  void rangesAnywhereInTheFileComeBackExactly() throws IOException {
    int piece = DirectRead.PIECE_BYTES;
    int[][] ranges = {
      {0, 0},
      {0, 1},
      {1, 100},
      {4095, 2},
      {4096, 4096},
      {piece - 4096, 8192},
      {5000, 2 * piece + 17},
      {FILE_BYTES - 1, 1},
      {FILE_BYTES - 70_000, 70_000},
      {0, FILE_BYTES},
      {FILE_BYTES, 0}
    };
    for (int[] range : ranges) {
      ByteBuf read = read(range[0], range[1]);
      try {
        byte[] bytes = new byte[read.readableBytes()];
        read.getBytes(read.readerIndex(), bytes);
        assertArrayEquals(
            Arrays.copyOfRange(content, range[0], range[0] + range[1]),
            bytes,
            "range " + Arrays.toString(range));
        long held = ((CompositeByteBuf) read).numComponents() * (long) piece;
        assertTrue(
            held <= DirectRead.memoryFor(range[1]),
            held + " bytes held for " + Arrays.toString(range));
      } finally {
        read.release();
      }
    }
  }

  @Test
  void aRangePastTheFilesEndFailsAndHoldsNothing() {
    assertThrows(EOFException.class, () -> read(FILE_BYTES - 10, 20));
    assertThrows(EOFException.class, () -> read(FILE_BYTES + 5000, 10));
    // The pieces already read were released: the paranoid leak detector would report them.
  }

  @Test
  void theMemoryOfARequestCoversItsWidenedRange() {
    assertEquals(DirectRead.PIECE_BYTES, DirectRead.memoryFor(1));
    assertEquals(9L * DirectRead.PIECE_BYTES, DirectRead.memoryFor(8 << 20));
  }

  private ByteBuf read(long offset, int length) throws IOException {
    try (FileChannel channel = FileIo.DEFAULT.openForDirectRead(file)) {
      return DirectRead.read(channel, offset, length, allocator);
    }
  }
}
