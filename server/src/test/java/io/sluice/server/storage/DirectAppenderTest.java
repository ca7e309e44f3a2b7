package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Appends around the page cache: every block lands at the offset the appender reports, blocks
 * written in place start at aligned offsets with only zeros before them, staged blocks follow what
 * came before them directly, and the file ends at the first aligned offset at or after its last
 * block's end with only zeros after that end, across appends, batches larger than the staging
 * buffer and than one write, and blocks of every kind.
 */
class DirectAppenderTest {
  private static final int A = DirectAppender.ALIGNMENT;

  @TempDir Path dir;
  private Path file;

  /** Where the last block appended to {@code file} ends. */
  private long logicalEnd;

  private final Random random = new Random(42);
  private final List<ByteBuffer> aligned = new ArrayList<>();
  private final List<ByteBuf> made = new ArrayList<>();

  @BeforeEach
  void directIo() {
    assumeTrue(Blocks.directIoWorks(dir), "no O_DIRECT on " + dir);
    file = dir.resolve("0-0.data");
  }

  /** A block in memory that starts at an aligned address: written in place when large enough. */
  private TestBlock alignedBlock(int length) {
    ByteBuffer memory = ByteBuffer.allocateDirect(length + 2 * A).alignedSlice(A);
    aligned.add(memory);
    // Garbage after the block, which must never reach the file.
    for (int i = length; i < memory.capacity(); i++) {
      memory.put(i, (byte) 0x5a);
    }
    ByteBuf data = Unpooled.wrappedBuffer(memory.slice(0, length)).clear();
    return fill(data, length);
  }

  /** A block whose memory starts off the alignment: always staged. */
  private TestBlock unalignedBlock(int length) {
    ByteBuffer memory = ByteBuffer.allocateDirect(length + 2 * A).alignedSlice(A);
    aligned.add(memory);
    ByteBuf data = Unpooled.wrappedBuffer(memory.slice(8, length)).clear();
    return fill(data, length);
  }

  private TestBlock heapBlock(int length) {
    return fill(Unpooled.buffer(length), length);
  }

  private TestBlock fill(ByteBuf data, int length) {
    made.add(data);
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    data.writeBytes(bytes);
    return new TestBlock(data, 1, 0, length, 0);
  }

  /** Appends and checks every block's bytes where reported, and that only zeros lie between. */
  private long appendAndCheck(List<TestBlock> blocks) throws IOException {
    long before = logicalEnd;
    long[] starts = new long[blocks.size()];
    long end;
    try (FileChannel channel = FileIo.DEFAULT.openForDirectWrite(file)) {
      end =
          DirectAppender.append(channel, DirectAppender.newStagingBuffer(), before, blocks, starts);
    }
    logicalEnd = end;
    byte[] stored = Files.readAllBytes(file);
    assertEquals(
        Blocks.alignedUp(end),
        stored.length,
        "the file ends at the first aligned offset at or after its last block's end");
    for (long z = end; z < stored.length; z++) {
      assertEquals(0, stored[(int) z], "byte " + z + " after the last block");
    }
    long at = before;
    for (int i = 0; i < blocks.size(); i++) {
      ByteBuf data = blocks.get(i).data();
      int length = data.readableBytes();
      assertTrue(starts[i] >= at, "block " + i + " overlaps the one before");
      if (length > 0 && starts[i] > at) {
        assertEquals(0, starts[i] % A, "block " + i + " has bytes before it but is not aligned");
        assertTrue(starts[i] - at < A, "block " + i + " has " + (starts[i] - at) + " bytes before");
        for (long g = at; g < starts[i]; g++) {
          assertEquals(0, stored[(int) g], "byte " + g + " before block " + i);
        }
      }
      byte[] expected = new byte[length];
      data.getBytes(data.readerIndex(), expected);
      byte[] actual = new byte[length];
      System.arraycopy(stored, (int) starts[i], actual, 0, length);
      assertArrayEquals(expected, actual, "block " + i + " at " + starts[i]);
      at = starts[i] + length;
    }
    assertEquals(at, end);
    return end;
  }

  @Test
  void largeAlignedBlocksGoInPlaceAtAlignedOffsetsAndTheRestFollowsDirectly() throws IOException {
    List<TestBlock> first =
        List.of(
            heapBlock(1000),
            alignedBlock(100_000),
            heapBlock(10),
            alignedBlock(65_536),
            alignedBlock(64 * 1024 + 1),
            unalignedBlock(200_000),
            alignedBlock(1000),
            heapBlock(0),
            alignedBlock(300_001));
    appendAndCheck(first);
    long[] starts = new long[first.size()];
    try (FileChannel channel = FileIo.DEFAULT.openForDirectWrite(dir.resolve("again.data"))) {
      DirectAppender.append(channel, DirectAppender.newStagingBuffer(), 0, first, starts);
    }
    assertEquals(0, starts[0]);
    assertEquals(A, starts[1], "the large aligned block after 1,000 staged bytes");
    assertEquals(A + 100_000, starts[2], "a staged block right after it");
    assertTrue(starts[6] == starts[5] + 200_000, "a small aligned block is staged");
  }

  @AfterEach
  void release() {
    made.forEach(ByteBuf::release);
  }

  @Test
  void appendsToAFileThatEndsOffTheAlignmentEitherWay() throws IOException {
    appendAndCheck(List.of(heapBlock(5_000)));
    appendAndCheck(List.of(alignedBlock(70_000), heapBlock(3)));
    appendAndCheck(List.of(heapBlock(123), alignedBlock(80_000)));
    appendAndCheck(List.of(alignedBlock(A * 20)));
    appendAndCheck(List.of(heapBlock(0)));
    appendAndCheck(List.of(unalignedBlock(7), alignedBlock(A * 16 + 5)));
  }

  @Test
  void batchesLargerThanTheStagingBufferAndThanOneWrite() throws IOException {
    List<TestBlock> blocks = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      switch (random.nextInt(4)) {
        case 0 -> blocks.add(alignedBlock(64 * 1024 + random.nextInt(200_000)));
        case 1 -> blocks.add(heapBlock(random.nextInt(40_000)));
        case 2 -> blocks.add(unalignedBlock(1 + random.nextInt(300_000)));
        default -> blocks.add(alignedBlock(1 + random.nextInt(64 * 1024)));
      }
    }
    long end = appendAndCheck(blocks);
    assertTrue(end > 4L * DirectAppender.WRITE_BYTES, "several writes: " + end);
    appendAndCheck(blocks.subList(0, 50));
  }
}
