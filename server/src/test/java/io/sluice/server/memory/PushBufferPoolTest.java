package io.sluice.server.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The push pool's admission rule, its flush triggers, and frees from any thread. */
class PushBufferPoolTest {
  private static final long MIB = 1L << 20;

  @Test
  void rejectsInvalidConfigurations() {
    assertThrows(IllegalArgumentException.class, () -> new PushBufferPool(0, 0.75, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new PushBufferPool(MIB, 0.5, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new PushBufferPool(MIB, 0.5, 0.75));
    assertThrows(IllegalArgumentException.class, () -> new PushBufferPool(MIB, 1.1, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new PushBufferPool(MIB, 0.75, -0.1));
  }

  @Test
  void chunksAndSlabsAreOneMebibyte() {
    assertEquals(MIB, new PushBufferPool(16 * MIB, 0.75, 0.5).chunkSize());
    assertEquals(MIB, PushBufferPool.SLAB_SIZE);
  }

  @Test
  void admissionNeverLetsHeldMemoryPassCapacity() {
    long capacity = 16 * MIB;
    PushBufferPool pool = new PushBufferPool(capacity, 0.75, 0.5);
    Random random = new Random(11);
    List<ByteBuf> held = new ArrayList<>();
    int admitted = 0;
    int refused = 0;
    try {
      for (int i = 0; i < 20_000; i++) {
        if (!held.isEmpty() && random.nextInt(held.size() > 40 ? 2 : 4) == 0) {
          pool.free(held.remove(random.nextInt(held.size())));
        } else {
          // Mostly blocks of a few pages, some larger than a chunk.
          int length =
              random.nextInt(50) == 0
                  ? (int) MIB + random.nextInt((int) MIB)
                  : 1 + random.nextInt(300 * 1024);
          ByteBuf buf = pool.tryAllocate(length);
          if (buf == null) {
            refused++;
            // Refused only when the allocation could need more than what is left: a new chunk or
            // slab, or a huge block's own size.
            long worstCase = Math.max(length, pool.chunkSize());
            assertTrue(
                pool.usedBytes() + worstCase > capacity,
                "refused "
                    + length
                    + " bytes with "
                    + pool.usedBytes()
                    + " of "
                    + capacity
                    + " held");
          } else {
            admitted++;
            assertEquals(length, buf.capacity(), "an exact-size buffer");
            assertTrue(buf.isDirect());
            buf.writeZero(length);
            held.add(buf);
          }
        }
        assertTrue(
            pool.usedBytes() <= capacity, "the pool holds " + pool.usedBytes() + " > " + capacity);
        assertTrue(
            pool.allocatedBytes() <= pool.usedBytes(),
            "blocks " + pool.allocatedBytes() + " > held " + pool.usedBytes());
      }
      assertTrue(admitted > 1000 && refused > 0, admitted + " admitted, " + refused + " refused");
    } finally {
      held.forEach(pool::free);
    }
    assertEquals(0, pool.allocatedBytes());
    assertTrue(pool.usedBytes() <= capacity);
  }

  @Test
  void afterAFailedAllocationPushesWaitUntilBlocksOfTheirSizeAreFreed() {
    PushBufferPool pool = new PushBufferPool(4 * MIB, 0.6, 0.25);
    List<ByteBuf> blocks = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      blocks.add(pool.tryAllocate((int) MIB / 2));
    }
    List<String> letIn = new ArrayList<>();
    assertTrue(
        pool.hasRoomOrQueue(MIB, () -> letIn.add("early")),
        "the pool has room until a push is refused for want of it");
    assertNull(pool.tryAllocate((int) MIB / 2));
    pool.pushRefused();

    assertFalse(pool.hasRoomOrQueue(MIB, () -> letIn.add("first")));
    assertFalse(pool.hasRoomOrQueue(MIB / 2, () -> letIn.add("second")));
    Runnable third = () -> letIn.add("third");
    assertFalse(pool.hasRoomOrQueue(MIB, third));
    assertEquals(3, pool.roomWaiters());

    pool.free(blocks.get(0));
    assertTrue(letIn.isEmpty(), "half of what the first waiter needs");
    pool.free(blocks.get(1));
    assertEquals(List.of("first"), letIn, "a MiB freed: room for the first waiter only");
    assertTrue(pool.cancelRoomWait(third), "a waiter not let in can be taken back");
    assertFalse(
        pool.hasRoomOrQueue(MIB / 4, () -> letIn.add("fourth")),
        "first come first served: a new push waits behind the second");
    pool.free(blocks.get(2));
    assertEquals(List.of("first", "second"), letIn);
    assertFalse(pool.cancelRoomWait(third), "taken back already");
    assertEquals(1, pool.roomWaiters());

    pool.free(blocks.get(3)); // 2 of 4 MiB held now: below the high watermark (2.4)
    assertEquals(List.of("first", "second", "fourth"), letIn);
    assertTrue(
        pool.hasRoomOrQueue(4 * MIB, () -> letIn.add("late")),
        "below the high watermark the pool has room again");
    blocks.subList(4, 8).forEach(pool::free);
  }

  @Test
  void aWaiterTakenBackLetsInThoseBehindItThatFit() {
    PushBufferPool pool = new PushBufferPool(4 * MIB, 0.6, 0.25);
    List<ByteBuf> blocks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      blocks.add(pool.tryAllocate((int) MIB));
    }
    pool.pushRefused();
    List<String> letIn = new ArrayList<>();
    Runnable big = () -> letIn.add("big");
    assertFalse(pool.hasRoomOrQueue(2 * MIB, big));
    assertFalse(pool.hasRoomOrQueue(MIB / 2, () -> letIn.add("small")));
    pool.free(blocks.remove(0));
    assertTrue(letIn.isEmpty(), "1 MiB freed: not enough for the big push at the head");

    assertTrue(pool.cancelRoomWait(big));
    assertEquals(List.of("small"), letIn, "the room the big push waited for goes to the next");
    blocks.forEach(pool::free);
  }

  @Test
  void smallBlocksMakeRoomOnlyWhenTheirSlabGoes() {
    PushBufferPool pool = new PushBufferPool(2 * MIB, 0.5, 0.25);
    List<ByteBuf> small = new ArrayList<>();
    for (int i = 0; i < 65; i++) {
      small.add(pool.tryAllocate(16 * 1024)); // 64 fill the first slab, one opens a second
    }
    assertEquals(2 * MIB, pool.usedBytes());
    pool.pushRefused();
    List<String> letIn = new ArrayList<>();
    assertFalse(pool.hasRoomOrQueue(64 * 1024, () -> letIn.add("push")));
    pool.free(small.get(0));
    pool.free(small.get(1));
    assertTrue(letIn.isEmpty(), "their slab still holds other blocks: no room came back");
    small.subList(2, 64).forEach(pool::free);
    assertEquals(MIB, pool.usedBytes());
    assertEquals(List.of("push"), letIn, "the first slab went back");
    pool.free(small.get(64));
  }

  @Test
  void blocksNeverShareMemory() {
    // Every live block holds its own pattern; a page handed out twice would overwrite another's.
    PushBufferPool pool = new PushBufferPool(8 * MIB, 0.75, 0.5);
    Random random = new Random(3);
    List<ByteBuf> held = new ArrayList<>();
    List<Integer> fills = new ArrayList<>();
    try {
      for (int i = 0; i < 20_000; i++) {
        if (!held.isEmpty() && random.nextInt(3) == 0) {
          int k = random.nextInt(held.size());
          ByteBuf b = held.remove(k);
          int fill = fills.remove(k);
          for (int j = 0; j < b.capacity(); j += 997) {
            assertEquals((byte) fill, b.getByte(j), "block " + fill + " overwritten at " + j);
          }
          pool.free(b);
        } else {
          int length =
              random.nextInt(40) == 0
                  ? (int) MIB + random.nextInt((int) MIB)
                  : 32 * 1024 + random.nextInt(400 * 1024);
          ByteBuf b = pool.tryAllocate(length);
          if (b != null) {
            int fill = i;
            for (int j = 0; j < length; j++) {
              b.writeByte(fill);
            }
            held.add(b);
            fills.add(fill);
          }
        }
        assertTrue(pool.usedBytes() <= 8 * MIB);
      }
    } finally {
      held.forEach(pool::free);
    }
    assertEquals(0, pool.allocatedBytes());
    assertEquals(0, pool.usedBytes(), "every chunk went back with its last block");
  }

  @Test
  void aBlockNeverFreedIsReportedAsALeakWithItsChunk() {
    leakABlockAndItsPool();
    List<String> leaks = new ArrayList<>();
    for (int attempt = 0;
        attempt < 20
            && !(reported(leaks, "PageBlock.<init>") && reported(leaks, "PageArena$Chunk.<init>"));
        attempt++) {
      leaks.addAll(io.sluice.common.testing.LeakRecorder.collect());
    }
    assertTrue(reported(leaks, "PageBlock.<init>"), "the block was not reported: " + leaks);
    assertTrue(
        reported(leaks, "PageArena$Chunk.<init>"), "its chunk's memory was not reported: " + leaks);
  }

  private static void leakABlockAndItsPool() {
    PushBufferPool pool = new PushBufferPool(4 * MIB, 0.75, 0.5);
    assertNotNull(pool.tryAllocate(64 * 1024).writeZero(64 * 1024));
  }

  private static boolean reported(List<String> leaks, String frame) {
    return leaks.stream().anyMatch(l -> l.contains(frame));
  }

  @Test
  void concurrentAdmissionNeverPassesCapacity() throws Exception {
    long capacity = 16 * MIB;
    PushBufferPool pool = new PushBufferPool(capacity, 0.75, 0.5);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong peak = new AtomicLong();
    Thread sampler =
        new Thread(
            () -> {
              while (running.get()) {
                peak.accumulateAndGet(pool.usedBytes(), Math::max);
                Thread.yield();
              }
            });
    sampler.start();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> workers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        workers.add(
            threads.submit(
                () -> {
                  Random random = new Random(seed);
                  ArrayDeque<ByteBuf> mine = new ArrayDeque<>();
                  int admitted = 0;
                  try {
                    for (int i = 0; i < 5_000; i++) {
                      ByteBuf buf = pool.tryAllocate(1 + random.nextInt(256 * 1024));
                      if (buf != null) {
                        admitted++;
                        mine.add(buf);
                        assertTrue(pool.usedBytes() <= capacity);
                      }
                      if (mine.size() > 12 || (buf == null && !mine.isEmpty())) {
                        pool.free(mine.poll());
                      }
                    }
                  } finally {
                    mine.forEach(pool::free);
                  }
                  return admitted;
                }));
      }
      for (Future<Integer> f : workers) {
        assertTrue(f.get(60, TimeUnit.SECONDS) > 0);
      }
    } finally {
      running.set(false);
      sampler.join();
      threads.shutdownNow();
    }
    assertTrue(peak.get() <= capacity, "peak " + peak.get());
    assertEquals(0, pool.allocatedBytes());
  }

  @Test
  void smallBlocksShareSlabsThatGoBackWithTheirLastBlock() {
    PushBufferPool pool = new PushBufferPool(16 * MIB, 0.75, 0.5);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      ByteBuf b = pool.tryAllocate(16 * 1024);
      assertEquals(16 * 1024, b.capacity());
      held.add(b.writeZero(16 * 1024));
    }
    assertEquals(MIB, pool.usedBytes(), "64 blocks of 16 KiB fill one slab");
    ByteBuf next = pool.tryAllocate(100);
    assertEquals(2 * MIB, pool.usedBytes(), "the next block opens a second slab");
    held.forEach(pool::free);
    assertEquals(MIB, pool.usedBytes(), "the full slab went back with its last block");
    pool.free(next);
    assertEquals(0, pool.usedBytes());
    assertEquals(0, pool.allocatedBytes());
  }

  @Test
  void tinyBlocksAreChargedTheLeastChargeSoTheCapacityBoundsTheirNumber() {
    long capacity = 4 * MIB;
    int charge = PushBufferPool.minBlockCharge(capacity, 4_096);
    assertEquals(1024, charge);
    assertEquals(4_096, PushBufferPool.maxBlocks(capacity, 4_096));
    assertEquals(
        32 * 1024,
        PushBufferPool.minBlockCharge(capacity, 10),
        "never more than the smallest block of the arena is charged anyway");
    PushBufferPool pool = new PushBufferPool(capacity, 0.75, 0.5, charge);
    List<ByteBuf> held = new ArrayList<>();
    ByteBuf b;
    while ((b = pool.tryAllocate(16)) != null) {
      assertEquals(16, b.capacity(), "the block has its own size; the slab lends it more");
      held.add(b.writeZero(16));
    }
    assertEquals(4_096, held.size(), "4 MiB at 1 KiB a block, however small the blocks");
    assertEquals(capacity, pool.allocatedBytes());
    assertTrue(pool.needsFlush());
    held.forEach(pool::free);
    assertEquals(0, pool.allocatedBytes());
    assertEquals(0, pool.usedBytes());
    assertThrows(IllegalArgumentException.class, () -> new PushBufferPool(MIB, 0.75, 0.5, 0));
  }

  @Test
  void aChunkGoesBackWithItsLastBlockAndIsCountedExactly() {
    PushBufferPool pool = new PushBufferPool(MIB, 0.75, 0.5);
    for (int i = 0; i < 10; i++) {
      ByteBuf b = pool.tryAllocate(200 * 1024);
      assertNotNull(b, "block " + i + " refused with " + pool.usedBytes() + " held");
      assertEquals(MIB, pool.usedBytes());
      assertEquals(200 * 1024, pool.allocatedBytes(), "25 pages of 8 KiB");
      pool.free(b);
      assertEquals(0, pool.usedBytes(), "the emptied chunk went back");
      assertEquals(0, pool.allocatedBytes());
    }
    ByteBuf first = pool.tryAllocate(600 * 1024);
    assertNotNull(first);
    assertNull(pool.tryAllocate(600 * 1024), "a second block would need a second chunk");
    ByteBuf fits = pool.tryAllocate(400 * 1024);
    assertNotNull(fits, "what is left of the chunk takes a block that fits it");
    assertEquals(MIB, pool.usedBytes());
    pool.free(first);
    pool.free(fits);
    assertEquals(0, pool.usedBytes());
  }

  @Test
  void largeBlocksStartAtAlignedAddressesForDirectWrites() {
    PushBufferPool pool = new PushBufferPool(4 * MIB, 0.75, 0.5);
    List<ByteBuf> held = new ArrayList<>();
    for (int length : new int[] {32 * 1024, 100_000, 8 * 1024 * 5 + 1, (int) (2 * MIB)}) {
      ByteBuf b = pool.tryAllocate(length);
      assertNotNull(b);
      assertEquals(0, b.memoryAddress() % PageArena.PAGE_ALIGNMENT, "a block of " + length);
      held.add(b);
    }
    assertEquals(
        4 * MIB / PageArena.CHUNK_SIZE * PageArena.PAGE_ALIGNMENT,
        PushBufferPool.alignmentSlack(4 * MIB));
    held.forEach(pool::free);
    assertEquals(0, pool.usedBytes());
  }

  @Test
  void freedPagesTakeNewBlocksWhileTheirChunkHoldsOthers() {
    PushBufferPool pool = new PushBufferPool(2 * MIB, 0.75, 0.5);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      held.add(pool.tryAllocate(64 * 1024));
    }
    assertEquals(MIB, pool.usedBytes(), "16 blocks of 8 pages fill one chunk");
    // Every other block flushed: the chunk stays, with eight holes of 64 KiB.
    for (int i = 0; i < 16; i += 2) {
      pool.free(held.set(i, null));
    }
    ByteBuf large = pool.tryAllocate(128 * 1024 + 1);
    assertNotNull(large);
    assertEquals(2 * MIB, pool.usedBytes(), "no hole takes 17 pages: a second chunk opened");
    for (int i = 0; i < 16; i += 2) {
      held.set(i, pool.tryAllocate(60 * 1024));
      assertNotNull(held.get(i), "a block of 8 pages goes into a hole");
    }
    assertEquals(2 * MIB, pool.usedBytes(), "the holes took them: nothing new opened");
    held.forEach(pool::free);
    pool.free(large);
    assertEquals(0, pool.usedBytes());
  }

  @Test
  void aBlockOfAChunkOrMoreNeverTakesThePoolPastItsCapacity() {
    PushBufferPool pool = new PushBufferPool(2 * MIB, 0.75, 0.5);
    ByteBuf small = pool.tryAllocate(200 * 1024);
    ByteBuf whole = pool.tryAllocate((int) MIB);
    assertNotNull(whole, "a second chunk fits the capacity");
    assertEquals(2 * MIB, pool.usedBytes(), "a block of a chunk's size takes a chunk");
    assertNull(pool.tryAllocate((int) MIB), "a third chunk would pass the capacity");
    assertNull(pool.tryAllocate((int) MIB + 1), "so would a block of its own");
    ByteBuf fits = pool.tryAllocate(824 * 1024);
    assertNotNull(fits, "the rest of the first chunk takes a block that fits it");
    assertEquals(2 * MIB, pool.usedBytes());
    pool.free(small);
    pool.free(whole);
    pool.free(fits);
    assertEquals(0, pool.allocatedBytes());
    assertEquals(0, pool.usedBytes());
    ByteBuf own = pool.tryAllocate((int) (2 * MIB));
    assertNotNull(own, "a block larger than a chunk gets memory of its own, within the capacity");
    assertEquals(2 * MIB, pool.usedBytes());
    pool.free(own);
    assertEquals(0, pool.usedBytes());
  }

  @Test
  void theCheapFlushCheckFollowsTheBlocksAndTheLastCount() {
    PushBufferPool pool = new PushBufferPool(16 * MIB, 0.5, 0.25);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      held.add(pool.tryAllocate((int) MIB));
    }
    assertFalse(pool.mayNeedFlush());
    held.add(pool.tryAllocate((int) MIB));
    assertTrue(pool.mayNeedFlush(), "the blocks alone reach the high watermark");
    held.forEach(pool::free);
    held.clear();
    pool.usedBytes();
    assertFalse(pool.mayNeedFlush(), "once counted again, nothing is held");
  }

  @Test
  void canEverHoldOnlyWhatFitsTheCapacity() {
    PushBufferPool pool = new PushBufferPool(16 * MIB, 0.75, 0.5);
    assertTrue(pool.canEverHold(0));
    assertTrue(pool.canEverHold(1));
    assertTrue(pool.canEverHold(16 * MIB));
    assertFalse(pool.canEverHold(16 * MIB + 1));
    assertEquals(40 * 1024, pool.chargeOf(32 * 1024 + 1), "a large block takes whole pages");
    PushBufferPool tight = new PushBufferPool(MIB + 4096, 0.75, 0.5);
    assertFalse(
        tight.canEverHold(tight.chargeOf((int) MIB + 1)),
        "a block that fits in bytes but not in pages is refused for good");
    assertNull(tight.tryAllocate((int) MIB + 1));
    // Independent of what the pool holds now.
    ByteBuf held = pool.tryAllocate((int) (15 * MIB));
    assertNotNull(held);
    try {
      assertTrue(pool.canEverHold(16 * MIB));
      assertNull(pool.tryAllocate((int) (2 * MIB)), "but it cannot hold it now");
    } finally {
      pool.free(held);
    }
  }

  @Test
  void flushTriggersFollowTheWatermarks() {
    // High watermark 8 MiB, low 4 MiB. Blocks of one chunk each, so that held memory and block
    // bytes agree exactly.
    PushBufferPool pool = new PushBufferPool(16 * MIB, 0.5, 0.25);
    List<ByteBuf> held = new ArrayList<>();
    try {
      assertFalse(pool.needsFlush());
      assertEquals(0, pool.bytesToFlush());
      for (int i = 0; i < 7; i++) {
        held.add(pool.tryAllocate((int) MIB));
      }
      assertEquals(7 * MIB, pool.usedBytes());
      assertEquals(7 * MIB, pool.allocatedBytes());
      assertFalse(pool.needsFlush(), "under the high watermark");
      assertEquals(0, pool.bytesToFlush());
      held.add(pool.tryAllocate((int) MIB));
      assertTrue(pool.needsFlush(), "at the high watermark");
      assertEquals(4 * MIB, pool.bytesToFlush(), "down to the low watermark");
      held.add(pool.tryAllocate((int) MIB));
      held.add(pool.tryAllocate((int) MIB));
      assertEquals(6 * MIB, pool.bytesToFlush());
      pool.free(held.remove(0));
      pool.free(held.remove(0));
      pool.free(held.remove(0));
      assertEquals(7 * MIB, pool.usedBytes());
      assertFalse(pool.needsFlush(), "back under the high watermark");
      assertEquals(0, pool.bytesToFlush());
    } finally {
      held.forEach(pool::free);
    }
  }

  @Test
  void chunksHeldByFewBlocksMakeARoundFlushThoseBlocks() {
    // Blocks spread over many chunks: a chunk goes back only when all its blocks are freed.
    PushBufferPool pool = new PushBufferPool(16 * MIB, 0.5, 0.25);
    List<ByteBuf> held = new ArrayList<>();
    try {
      for (int i = 0; i < 16 * 9; i++) {
        held.add(pool.tryAllocate(64 * 1024));
      }
      assertEquals(9 * MIB, pool.usedBytes());
      assertEquals(9 * MIB, pool.allocatedBytes());
      assertEquals(5 * MIB, pool.bytesToFlush());
      // Free three of every four blocks: every chunk stays, a quarter full.
      List<ByteBuf> kept = new ArrayList<>();
      for (int i = 0; i < held.size(); i++) {
        if (i % 4 == 0) {
          kept.add(held.get(i));
        } else {
          pool.free(held.get(i));
        }
      }
      held = kept;
      assertEquals(9 * MIB, pool.usedBytes(), "chunks: nothing given back");
      assertEquals(9 * MIB / 4, pool.allocatedBytes());
      assertTrue(pool.needsFlush(), "flushing starts on what the chunks hold");
      assertEquals(
          9 * MIB / 4, pool.bytesToFlush(), "only flushing every block left gives the chunks back");
      // Flushing the blocks of the first four chunks gives those chunks back.
      for (ByteBuf b : held.subList(0, 16)) {
        pool.free(b);
      }
      held = new ArrayList<>(held.subList(16, held.size()));
      assertEquals(5 * MIB, pool.usedBytes());
      assertFalse(pool.needsFlush());
      assertEquals(0, pool.bytesToFlush());
    } finally {
      held.forEach(pool::free);
    }
    assertEquals(0, pool.usedBytes());
  }

  @Test
  void buffersMayBeFreedFromOtherThreads() throws Exception {
    PushBufferPool pool = new PushBufferPool(32 * MIB, 0.75, 0.5);
    BlockingQueue<ByteBuf> handOver = new ArrayBlockingQueue<>(64);
    ByteBuf end = io.netty.buffer.Unpooled.EMPTY_BUFFER;
    ExecutorService freers = Executors.newFixedThreadPool(3);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      done.add(
          freers.submit(
              () -> {
                ByteBuf buf;
                while ((buf = handOver.take()) != end) {
                  pool.free(buf);
                }
                return null;
              }));
    }
    try {
      Random random = new Random(5);
      for (int i = 0; i < 20_000; i++) {
        ByteBuf buf;
        while ((buf = pool.tryAllocate(1 + random.nextInt(128 * 1024))) == null) {
          Thread.onSpinWait();
        }
        handOver.put(buf.writeZero(buf.capacity()));
      }
      for (int t = 0; t < 3; t++) {
        handOver.put(end);
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      freers.shutdownNow();
    }
    assertEquals(0, pool.allocatedBytes(), "every free was counted, whichever thread made it");
    assertTrue(pool.usedBytes() <= 32 * MIB);
  }

  @Test
  void chunksThatOnlyEverHeldWholeRunsAreGivenBackWhenEmpty() throws Exception {
    PushBufferPool pool = new PushBufferPool(16 * MIB, 0.75, 0.5);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      held.add(pool.tryAllocate(512 * 1024));
    }
    assertEquals(6 * MIB, pool.usedBytes());
    // Freed from another thread, as flushes do.
    Thread freer = new Thread(() -> held.forEach(pool::free));
    freer.start();
    freer.join();
    assertEquals(0, pool.allocatedBytes());
    assertEquals(0, pool.usedBytes());
  }

  /**
   * A workload of random small blocks, all freed at the end: the pool admits again. (Small blocks
   * once came from the arena, whose kept pages of small size classes pinned every chunk, and the
   * admission rule, counting them, refused every push of an empty pool.)
   */
  @Test
  void anEmptyPoolAdmitsAgain() {
    long capacity = 16 * MIB;
    PushBufferPool pool = new PushBufferPool(capacity, 0.75, 0.5);
    Random random = new Random(1);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      if (!held.isEmpty() && random.nextInt(3) == 0) {
        pool.free(held.remove(random.nextInt(held.size())));
      } else {
        // Small blocks, as the tail blocks of many partitions are.
        ByteBuf buf = pool.tryAllocate(1 + random.nextInt(32 * 1024));
        if (buf != null) {
          held.add(buf);
        }
      }
    }
    held.forEach(pool::free);
    assertEquals(0, pool.allocatedBytes());
    ByteBuf buf = pool.tryAllocate(64 * 1024);
    try {
      assertNotNull(
          buf,
          "an empty pool (holding "
              + pool.usedBytes()
              + " of "
              + capacity
              + " bytes) refuses a 64 KiB block");
    } finally {
      if (buf != null) {
        pool.free(buf);
      }
    }
  }

  @Test
  void anEmptiedChunkIsKeptAndTakesTheNextChunkOfBlocks() {
    PushBufferPool pool = new PushBufferPool(4 * MIB, 0.75, 0.5, 1, Duration.ofHours(1));
    try {
      ByteBuf first = pool.tryAllocate(256 * 1024);
      long firstMemory = first.memoryAddress();
      pool.free(first);
      assertEquals(0, pool.usedBytes(), "the watermarks see no blocks");
      assertEquals(MIB, pool.heldBytes(), "the spare stays mapped, counted as held");
      assertFalse(pool.needsFlush());
      ByteBuf next = pool.tryAllocate(512 * 1024);
      try {
        assertEquals(firstMemory, next.memoryAddress(), "the spare's memory, reused");
        assertEquals(MIB, pool.heldBytes(), "no new chunk");
        assertEquals(MIB, pool.usedBytes());
      } finally {
        pool.free(next);
      }
      pool.releaseIdleSpares();
      assertEquals(MIB, pool.heldBytes(), "a spare within its keep time stays");
    } finally {
      pool.close();
    }
    assertEquals(0, pool.heldBytes(), "closing gives the spares back");
  }

  @Test
  void sparesCountAgainstTheCapacityAndGiveWayToSlabsAndLargeBlocks() {
    PushBufferPool pool = new PushBufferPool(3 * MIB, 0.75, 0.5, 1, Duration.ofHours(1));
    List<ByteBuf> held = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        held.add(pool.tryAllocate((int) MIB));
      }
      held.forEach(pool::free);
      held.clear();
      assertEquals(3 * MIB, pool.heldBytes(), "three spares");
      // A slab needs memory of its own: a spare goes back for it, and the capacity holds.
      held.add(pool.tryAllocate(1024));
      assertEquals(3 * MIB, pool.heldBytes());
      // A block larger than a chunk has memory of its own: the other spares give way.
      held.add(pool.tryAllocate((int) (2 * MIB)));
      assertEquals(3 * MIB, pool.heldBytes());
      assertEquals(3 * MIB, pool.usedBytes());
      assertNull(pool.tryAllocate(64 * 1024), "the capacity is reached");
    } finally {
      held.forEach(pool::free);
      pool.close();
    }
    assertEquals(0, pool.heldBytes());
  }

  @Test
  void unusedSparesGoBackAfterTheKeepTimeAndAfterClosingAtOnce() {
    PushBufferPool pool = new PushBufferPool(4 * MIB, 0.75, 0.5, 1, Duration.ofMillis(1));
    try {
      pool.free(pool.tryAllocate(64 * 1024));
      assertEquals(MIB, pool.heldBytes());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (pool.heldBytes() > 0 && System.nanoTime() < deadline) {
        pool.releaseIdleSpares();
        Thread.onSpinWait();
      }
      assertEquals(0, pool.heldBytes(), "a spare not reused within its keep time goes back");
      ByteBuf block = pool.tryAllocate(64 * 1024);
      pool.close();
      assertEquals(MIB, pool.heldBytes(), "a block handed out stays valid after closing");
      block.writeLong(7);
      pool.free(block);
      assertEquals(0, pool.heldBytes(), "after closing, an emptied chunk goes back at once");
    } finally {
      pool.close();
    }
  }
}
