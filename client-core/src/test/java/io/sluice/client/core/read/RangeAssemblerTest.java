package io.sluice.client.core.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class RangeAssemblerTest {
  private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final byte[] data = new byte[600];

  /** Three blocks of 100, 300 and 200 bytes from offset 1000. */
  private final DataRange range =
      new DataRange(
          1000,
          600,
          List.of(
              new IndexEntry(1000, 100, 100, 0, 5, 1),
              new IndexEntry(1100, 300, 300, 0, 5, 2),
              new IndexEntry(1400, 200, 200, 0, 5, 3)));

  RangeAssemblerTest() {
    ThreadLocalRandom.current().nextBytes(data);
  }

  /** The answer to a read of {@code length} bytes at range offset {@code from}. */
  private ByteBuf answer(int from, int length) {
    return ALLOC.directBuffer(length).writeBytes(data, from, length);
  }

  private byte[] bytesOf(int block) {
    int from = (int) (range.blocks().get(block).offset() - range.offset());
    return Arrays.copyOfRange(data, from, from + range.blocks().get(block).length());
  }

  private static List<ByteBuf> keep(List<RangeAssembler.Piece> pieces, List<Integer> sequences) {
    List<ByteBuf> kept = new ArrayList<>();
    for (RangeAssembler.Piece p : pieces) {
      sequences.add(p.block().sequence());
      kept.add(p.data());
    }
    return kept;
  }

  @Test
  void oneWholeAnswerGivesEveryBlock() throws IOException {
    RangeAssembler assembler = new RangeAssembler(range, ALLOC);
    assertEquals(1000, assembler.nextOffset());
    assertEquals(600, assembler.remaining());
    ByteBuf whole = answer(0, 600);

    List<RangeAssembler.Piece> pieces = assembler.append(whole);
    assertTrue(assembler.complete());
    assembler.close();

    assertEquals(3, pieces.size());
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(bytesOf(i), ByteBufUtil.getBytes(pieces.get(i).data()));
      pieces.get(i).data().release();
    }
    assertEquals(0, whole.refCnt(), "the last block's release frees the answer");
  }

  @Test
  void shortAnswersContinueWhereTheyEndedAndASplitBlockIsJoined() throws IOException {
    RangeAssembler assembler = new RangeAssembler(range, ALLOC);
    List<Integer> ids = new ArrayList<>();
    List<ByteBuf> kept = new ArrayList<>();

    kept.addAll(keep(assembler.append(answer(0, 100)), ids)); // ends at a block boundary
    assertEquals(List.of(1), ids);
    assertEquals(1100, assembler.nextOffset());
    assertEquals(500, assembler.remaining());

    kept.addAll(keep(assembler.append(answer(100, 150)), ids)); // ends inside block 2
    assertEquals(List.of(1), ids);
    assertEquals(1250, assembler.nextOffset());

    kept.addAll(keep(assembler.append(answer(250, 200)), ids)); // completes block 2
    assertEquals(List.of(1, 2), ids);
    assertFalse(assembler.complete());

    kept.addAll(keep(assembler.append(answer(450, 150)), ids));
    assertEquals(List.of(1, 2, 3), ids);
    assertTrue(assembler.complete());
    assembler.close();

    for (int i = 0; i < 3; i++) {
      assertArrayEquals(bytesOf(i), ByteBufUtil.getBytes(kept.get(i)));
      kept.get(i).release();
    }
  }

  @Test
  void rejectsAnEmptyOrOversizedAnswerAndReleasesIt() throws IOException {
    RangeAssembler assembler = new RangeAssembler(range, ALLOC);
    ByteBuf empty = ALLOC.directBuffer(0);
    assertThrows(IOException.class, () -> assembler.append(empty));
    assertEquals(0, empty.refCnt());

    List<RangeAssembler.Piece> first = assembler.append(answer(0, 500));
    ByteBuf tooLong = answer(0, 101);
    assertThrows(IOException.class, () -> assembler.append(tooLong));
    assertEquals(0, tooLong.refCnt());
    assertEquals(1500, assembler.nextOffset(), "a rejected answer changes nothing");

    first.forEach(p -> p.data().release());
    assembler.close();
  }

  @Test
  void closeReleasesBytesOfAnIncompleteBlockButNotBlocksHandedOut() throws IOException {
    RangeAssembler assembler = new RangeAssembler(range, ALLOC);
    ByteBuf partial = answer(0, 250);
    List<RangeAssembler.Piece> pieces = assembler.append(partial);
    assertEquals(1, pieces.size());

    assembler.close();
    assembler.close();
    assertEquals(1, pieces.get(0).data().refCnt());
    assertArrayEquals(bytesOf(0), ByteBufUtil.getBytes(pieces.get(0).data()));
    pieces.get(0).data().release();
    assertEquals(0, partial.refCnt());
  }

  @Test
  void bytesBetweenBlocksAreDroppedAndCountedEvenWhenAnAnswerEndsAmongThem() throws IOException {
    // Blocks of 100 and 200 bytes with 300 bytes of zeros between, as a direct write leaves them.
    DataRange gapped =
        new DataRange(
            1000,
            600,
            List.of(
                new IndexEntry(1000, 100, 100, 0, 5, 1), new IndexEntry(1400, 200, 200, 0, 5, 2)));
    RangeAssembler assembler = new RangeAssembler(gapped, ALLOC);
    List<Integer> ids = new ArrayList<>();
    List<ByteBuf> kept = new ArrayList<>();

    kept.addAll(keep(assembler.append(answer(0, 250)), ids)); // ends among the zeros
    assertEquals(List.of(1), ids);
    assertEquals(0, assembler.takeDroppedBytes(), "nothing dropped before the next block is cut");
    kept.addAll(keep(assembler.append(answer(250, 200)), ids)); // ends inside block 2
    assertEquals(List.of(1), ids);
    kept.addAll(keep(assembler.append(answer(450, 150)), ids));
    assertEquals(List.of(1, 2), ids);
    assertEquals(300, assembler.takeDroppedBytes());
    assertEquals(0, assembler.takeDroppedBytes());
    assertTrue(assembler.complete());
    assembler.close();

    assertArrayEquals(Arrays.copyOfRange(data, 0, 100), ByteBufUtil.getBytes(kept.get(0)));
    assertArrayEquals(Arrays.copyOfRange(data, 400, 600), ByteBufUtil.getBytes(kept.get(1)));
    kept.forEach(ByteBuf::release);
  }

  @Test
  void anEmptyBlockAfterZerosCountsThemDropped() throws IOException {
    DataRange gapped =
        new DataRange(
            1000,
            1100,
            List.of(new IndexEntry(1000, 100, 100, 0, 5, 1), new IndexEntry(2100, 0, 0, 0, 5, 2)));
    RangeAssembler assembler = new RangeAssembler(gapped, ALLOC);
    ByteBuf answer = ALLOC.directBuffer(1100).writeZero(1100);
    List<RangeAssembler.Piece> pieces = assembler.append(answer);
    assertEquals(2, pieces.size());
    assertEquals(0, pieces.get(1).data().readableBytes());
    assertEquals(1000, assembler.takeDroppedBytes(), "every byte of the range is accounted");
    assertTrue(assembler.complete());
    assembler.close();
    pieces.forEach(p -> p.data().release());
  }

  @Test
  void aRangeOfEmptyBlocksNeedsNoRead() {
    DataRange empty = new DataRange(40, 0, List.of(new IndexEntry(40, 0, 0, 0, 5, 9)));
    RangeAssembler assembler = new RangeAssembler(empty, ALLOC);
    assertTrue(assembler.complete());
    List<RangeAssembler.Piece> pieces = assembler.takeCompleted();
    assertEquals(1, pieces.size());
    assertEquals(0, pieces.get(0).data().readableBytes());
    assertTrue(assembler.takeCompleted().isEmpty());
  }
}
