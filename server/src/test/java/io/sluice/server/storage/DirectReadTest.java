package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.sluice.server.memory.ReadBudget;
import io.sluice.server.memory.ReadBuffers;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectReadTest {
  /** Three pieces and an unaligned tail. */
  private static final int FILE_BYTES = 3 * ReadBuffers.PIECE_BYTES + 12_345;

  private final ReadBudget readMemory = new ReadBudget(64L << 20);

  @TempDir Path dir;
  private Path file;
  private byte[] content;

  @BeforeEach
  void writeFile() throws IOException {
    assumeTrue(Blocks.directIoWorks(dir), "no O_DIRECT on " + dir);
    content = new byte[FILE_BYTES];
    new Random(7).nextBytes(content);
    file = dir.resolve("0-0.data");
    Files.write(file, content);
  }

  /** A buffer not given back would stay counted in read memory (and the leak detector tell). */
  @AfterEach
  void allBuffersCameBack() {
    readMemory.close();
    assertEquals(0, readMemory.usedBytes());
  }

  @Test
  void rangesAnywhereInTheFileComeBackExactly() throws IOException {
    int piece = ReadBuffers.PIECE_BYTES;
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
      } finally {
        read.release();
      }
    }
  }

  @Test
  void aRangePastTheFilesEndFailsAndGivesItsBuffersBack() {
    assertThrows(EOFException.class, () -> read(FILE_BYTES - 10, 20));
    assertThrows(EOFException.class, () -> read(FILE_BYTES - 2 * ReadBuffers.PIECE_BYTES, 3 << 20));
    assertThrows(EOFException.class, () -> read(FILE_BYTES + 5000, 10));
    // The pieces went back: see allBuffersCameBack.
  }

  @Test
  void aRequestTakesThePiecesOfItsWidenedRange() {
    assertEquals(1, DirectRead.piecesFor(0, 1));
    assertEquals(1, DirectRead.piecesFor(ReadBuffers.PIECE_BYTES - 1, 2));
    assertEquals(2, DirectRead.piecesFor(4095, ReadBuffers.PIECE_BYTES));
    assertEquals(8, DirectRead.piecesFor(0, 8 << 20));
    assertEquals(9, DirectRead.piecesFor(1, 8 << 20));
    assertEquals(0, DirectRead.piecesFor(4096, 0));
  }

  private ByteBuf read(long offset, int length) throws IOException {
    List<ByteBuf> pieces = readMemory.directReads().tryTake(DirectRead.piecesFor(offset, length));
    try (FileChannel channel = FileIo.DEFAULT.openForDirectRead(file)) {
      return DirectRead.read(channel, offset, length, pieces);
    }
  }
}
