package io.sluice.server.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadBuffersTest {
  private static final long SLAB = ReadBuffers.SLAB_BYTES;
  private final AtomicLong clock = new AtomicLong();

  @Test
  void buffersAreAlignedAndKeptForTheNextRead() {
    Budget budget = new Budget(64L << 20);
    ReadBuffers buffers = new ReadBuffers(budget, Duration.ofSeconds(30).toNanos(), clock::get);
    List<ByteBuf> pieces = buffers.tryTake(3);
    assertNotNull(pieces);
    for (ByteBuf piece : pieces) {
      assertEquals(0, piece.memoryAddress() % ReadBuffers.ALIGNMENT);
      assertEquals(ReadBuffers.PIECE_BYTES, piece.capacity());
      piece.writeLong(7);
    }
    assertEquals(3 * SLAB, budget.used(), "each counts in read memory, its slack too");
    pieces.forEach(ByteBuf::release);
    assertEquals(3, buffers.freeCount());
    assertEquals(3 * SLAB, budget.used(), "kept, and still counted");
    List<ByteBuf> again = buffers.tryTake(2);
    assertEquals(3 * SLAB, budget.used(), "the kept ones are taken again");
    again.forEach(ByteBuf::release);
    buffers.close();
    assertEquals(0, budget.used());
  }

  @Test
  void directReadsHoldAtMostHalfOfReadMemoryAndTakeAllOrNothing() {
    Budget budget = new Budget(10L << 20);
    ReadBuffers buffers = new ReadBuffers(budget, Duration.ofSeconds(30).toNanos(), clock::get);
    List<ByteBuf> four = buffers.tryTake(4);
    assertNotNull(four, "4 slabs of 1 MiB and 4 KiB fit half of 10 MiB");
    assertNull(buffers.tryTake(1), "a fifth does not");
    four.get(0).release();
    assertNull(buffers.tryTake(2), "one is free, a second does not fit");
    assertEquals(1, buffers.freeCount(), "the free one stays free");
    assertEquals(4 * SLAB, budget.used());
    four.subList(1, 4).forEach(ByteBuf::release);
    buffers.close();
    assertEquals(0, budget.used());

    ReadBuffers fresh = new ReadBuffers(budget, Duration.ofSeconds(30).toNanos(), clock::get);
    assertNull(fresh.tryTake(5), "more than half of read memory at once");
    assertEquals(0, budget.used(), "and nothing was made for it");
  }

  @Test
  void theHalfIsDirectReadsOwnShare() {
    Budget budget = new Budget(10L << 20);
    ReadBuffers buffers = new ReadBuffers(budget, Duration.ofSeconds(30).toNanos(), clock::get);
    assertTrue(budget.tryReserve(5L << 20), "memory reads hold half");
    List<ByteBuf> pieces = buffers.tryTake(4);
    assertNotNull(pieces, "direct reads still have their half");
    assertNull(buffers.tryTake(1));
    assertFalse(budget.tryReserve(1L << 20), "and the whole is spent");
    pieces.forEach(ByteBuf::release);
    budget.release(5L << 20);
    buffers.close();
    assertEquals(0, budget.used());
  }

  @Test
  void freeBuffersGiveWayToMemoryReadsAndGoAfterTheKeepTime() {
    ReadBudget reads = new ReadBudget(8L << 20, Duration.ofSeconds(30));
    reads.directReads().tryTake(2).forEach(ByteBuf::release);
    assertEquals(2 * SLAB, reads.usedBytes());
    assertTrue(reads.tryReserve(7L << 20), "a memory read frees the kept buffers for its room");
    assertEquals(7L << 20, reads.usedBytes());
    reads.release(7L << 20);

    Budget budget = new Budget(64L << 20);
    ReadBuffers buffers = new ReadBuffers(budget, Duration.ofSeconds(30).toNanos(), clock::get);
    buffers.tryTake(2).forEach(ByteBuf::release);
    clock.addAndGet(Duration.ofSeconds(20).toNanos());
    buffers.tryTake(1).forEach(ByteBuf::release);
    assertEquals(2, buffers.freeCount());
    buffers.freeIdle();
    assertEquals(2, buffers.freeCount(), "used 20 s ago and now: kept");
    clock.addAndGet(Duration.ofSeconds(11).toNanos());
    buffers.freeIdle();
    assertEquals(1, buffers.freeCount(), "the one unused for 31 s went");
    clock.addAndGet(Duration.ofSeconds(20).toNanos());
    buffers.freeIdle();
    assertEquals(0, buffers.freeCount());
    assertEquals(0, budget.used());

    ReadBuffers keepingNone = new ReadBuffers(budget, 0, clock::get);
    keepingNone.tryTake(2).forEach(ByteBuf::release);
    assertEquals(0, budget.used(), "a keep time of 0 frees each as it comes back");
  }

  @Test
  void aBufferInUseWhenClosedIsFreedWhenItComesBack() {
    Budget budget = new Budget(64L << 20);
    ReadBuffers buffers = new ReadBuffers(budget, Duration.ofSeconds(30).toNanos(), clock::get);
    List<ByteBuf> pieces = buffers.tryTake(1);
    buffers.close();
    assertEquals(SLAB, budget.used());
    assertNull(buffers.tryTake(1), "a closed pool makes no more");
    pieces.get(0).release();
    assertEquals(0, budget.used());
  }
}
