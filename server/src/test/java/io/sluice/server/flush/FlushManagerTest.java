package io.sluice.server.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.server.ServerOptions;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.shuffle.PartitionFlusher;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.shuffle.ShuffleState;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.shuffle.StoreLimits;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the flush planner picks: when the push pool asks for a flush, the largest partitions, in
 * order, until the bytes the pool asks for are covered, and nothing more; a partition past its
 * threshold on its own.
 */
class FlushManagerTest {
  private static final long MIB = 1L << 20;
  private static final String APP = "app-flush-planning";

  @TempDir Path dir;
  private DiskManager disks;
  private ShuffleStore store;
  private ServerMetrics metrics;
  private FlushManager flushManager;
  private PushBufferPool pool;

  @BeforeEach
  void setUp() {
    disks = new DiskManager(List.of(dir.resolve("d1")), 0, 1, FileIo.DEFAULT);
    metrics = new ServerMetrics();
  }

  @AfterEach
  void tearDown() {
    if (flushManager != null) {
      flushManager.close();
    }
    disks.close();
    for (var app : List.copyOf(store.applications())) {
      store.unregisterApplication(app.appId());
    }
    assertEquals(0, pool.allocatedBytes(), "every block went back to the pool");
  }

  private void createStore(PushBufferPool pushPool) {
    createStore(pushPool, FileIo.DEFAULT);
  }

  private void createStore(PushBufferPool pushPool, FileIo io) {
    this.pool = pushPool;
    store =
        ShuffleStore.onLocalDisks(
            disks, io, pushPool::free, System::nanoTime, StoreLimits.unlimited());
    store.registerApplication(APP, "tester", null);
    store.registerApplication(APP + "-2", "tester", null);
  }

  private FlushManager startFlushManager(long partitionThreshold) {
    flushManager =
        new FlushManager(
            store,
            disks,
            pool,
            new PartitionFlusher(pool, metrics, ServerOptions.FlushDirect.LAST_COPIES),
            partitionThreshold,
            metrics);
    return flushManager;
  }

  /** Adds {@code mebibytes} blocks of one chunk each (so that chunk usage equals block bytes). */
  private PartitionState fill(String app, int shuffleId, int partitionId, int mebibytes) {
    ShuffleState shuffle = store.registerShuffle(app, shuffleId, 8);
    PartitionState partition = shuffle.partition(partitionId);
    add(partition, 0, mebibytes);
    return partition;
  }

  /** Adds blocks {@code first ..} of 1 MiB each to the partition. */
  private void add(PartitionState partition, int first, int mebibytes) {
    int partitionId = partition.partitionId();
    for (int i = first; i < first + mebibytes; i++) {
      ByteBuf buf = pool.tryAllocate((int) MIB);
      assertNotNull(buf, "the pool takes block " + i);
      buf.writeZero((int) MIB);
      assertTrue(
          partition.add(
              new BlockDescriptor(partitionId, 1, i, (int) MIB, (int) MIB, 0), buf, false));
    }
  }

  @Test
  void blocksPushedWhileAFlushRunsAreFlushedWhenItEnds() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FileIo slowFirstWrite = appendsHeldUntil(writing, release);
    createStore(new PushBufferPool(64 * MIB, 0.9, 0.8), slowFirstWrite);
    startFlushManager(2 * MIB);
    PartitionState partition = fill(APP, 0, 0, 2);
    flushManager.afterPush(partition);
    assertTrue(writing.await(20, TimeUnit.SECONDS), "the flush started");
    // Past the threshold again while the flush runs: this push finds the partition queued.
    add(partition, 2, 3);
    flushManager.afterPush(partition);
    release.countDown();
    waitUntil(() -> partition.memoryBytes() == 0, "the blocks pushed meanwhile are flushed too");
    waitUntil(() -> flushManager.queuedFlushes() == 0, "flushes to end");
    assertEquals(5 * MIB, partition.files().dataLength());
  }

  @Test
  void aRoundFlushesTheLargestPartitionsUntilTheBytesAskedForAreCovered() throws Exception {
    // High watermark 16 MiB, low 8 MiB.
    createStore(new PushBufferPool(32 * MIB, 0.5, 0.25));
    PartitionState a = fill(APP, 0, 0, 8);
    PartitionState b = fill(APP + "-2", 0, 3, 5);
    PartitionState c = fill(APP, 1, 1, 3);
    PartitionState d = fill(APP, 0, 2, 2);
    PartitionState e = fill(APP + "-2", 0, 4, 1);
    assertEquals(19 * MIB, pool.usedBytes());
    // The pool asks for 19 - 8 = 11 MiB: the 8 MiB partition and then the 5 MiB one cover it.
    assertEquals(11 * MIB, pool.bytesToFlush());

    startFlushManager(Long.MAX_VALUE);
    waitUntil(() -> a.memoryBytes() == 0 && b.memoryBytes() == 0, "a and b flushed");
    waitUntil(() -> flushManager.queuedFlushes() == 0, "flushes to end");
    assertEquals(8 * MIB, a.files().dataLength());
    assertEquals(5 * MIB, b.files().dataLength());
    assertEquals(6 * MIB, pool.allocatedBytes());
    assertEquals(6 * MIB, pool.usedBytes());
    awaitNextRound();
    for (PartitionState kept : List.of(c, d, e)) {
      assertNull(kept.files(), "partition " + kept.partitionId() + " was not flushed");
    }
    assertEquals(3 * MIB, c.unflushedBytes());
    assertEquals(2 * MIB, d.unflushedBytes());
    assertEquals(1 * MIB, e.unflushedBytes());
  }

  @Test
  void flushesNotYetEndedCountAsCoveredInTheRoundsThatFollow() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    createStore(new PushBufferPool(32 * MIB, 0.5, 0.25), appendsHeldUntil(writing, release));
    PartitionState a = fill(APP, 0, 0, 8);
    PartitionState b = fill(APP + "-2", 0, 3, 5);
    List<PartitionState> rest =
        List.of(fill(APP, 1, 1, 3), fill(APP, 0, 2, 2), fill(APP + "-2", 0, 4, 1));
    startFlushManager(Long.MAX_VALUE);
    try {
      assertTrue(writing.await(20, TimeUnit.SECONDS), "the first round's flush started");
      // The pool still holds all 19 MiB while the flushes of a and b wait: later rounds must not
      // take that as 11 MiB more to flush.
      long after = flushManager.roundsPlanned() + 2;
      waitUntil(() -> flushManager.roundsPlanned() >= after, "two more rounds");
      assertEquals(2, flushManager.queuedFlushes());
      for (PartitionState kept : rest) {
        assertEquals(0, kept.bytesOnTheirWayToDisk(0), "partition " + kept.partitionId());
      }
    } finally {
      release.countDown();
    }
    waitUntil(() -> a.memoryBytes() == 0 && b.memoryBytes() == 0, "a and b flushed");
    waitUntil(() -> flushManager.queuedFlushes() == 0, "flushes to end");
    assertEquals(6 * MIB, pool.allocatedBytes());
  }

  /**
   * Under the high watermark with nothing queued, the planner wakes once a second, not every 50 ms:
   * a machine too loaded to run it on time only makes fewer rounds.
   */
  @Test
  void underTheHighWatermarkTheRoundsComeOnceASecond() throws Exception {
    createStore(new PushBufferPool(32 * MIB, 0.5, 0.25));
    fill(APP, 0, 0, 4);
    startFlushManager(Long.MAX_VALUE);
    awaitNextRound();
    long before = flushManager.roundsPlanned();
    long start = System.nanoTime();
    Thread.sleep(FlushManager.QUIET_PLAN_INTERVAL_MILLIS / 2);
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

    long rounds = flushManager.roundsPlanned() - before;

    assertTrue(
        rounds <= 1 + elapsedMillis / FlushManager.QUIET_PLAN_INTERVAL_MILLIS,
        rounds + " rounds in " + elapsedMillis + " ms");
  }

  @Test
  void nothingIsFlushedUnderTheHighWatermark() throws Exception {
    createStore(new PushBufferPool(32 * MIB, 0.5, 0.25));
    PartitionState a = fill(APP, 0, 0, 10);
    PartitionState b = fill(APP, 0, 1, 5);
    assertEquals(0, pool.bytesToFlush());
    startFlushManager(Long.MAX_VALUE);
    awaitNextRound();
    awaitNextRound();
    assertNull(a.files());
    assertNull(b.files());
    assertEquals(15 * MIB, pool.allocatedBytes());
  }

  @Test
  void aPartitionPastItsThresholdIsFlushedOnItsOwn() throws Exception {
    // Far from the high watermark: only the threshold can start a flush.
    createStore(new PushBufferPool(64 * MIB, 0.9, 0.5));
    startFlushManager(3 * MIB);
    PartitionState big = fill(APP, 0, 0, 3);
    PartitionState small = fill(APP, 0, 1, 2);
    flushManager.afterPush(small);
    flushManager.afterPush(big);
    waitUntil(() -> big.memoryBytes() == 0, "the partition past its threshold is flushed");
    waitUntil(() -> flushManager.queuedFlushes() == 0, "flushes to end");
    assertEquals(3 * MIB, big.files().dataLength());
    awaitNextRound();
    assertNull(small.files(), "a partition under its threshold stays in memory");
    assertEquals(2 * MIB, pool.allocatedBytes());
    assertEquals(0, pool.bytesToFlush());
  }

  @Test
  void pushesOverTheHighWatermarkAskForARoundAtMostEveryFewMilliseconds() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FileIo heldWrites = appendsHeldUntil(writing, release);
    // High watermark 16 MiB; the flush the first round queues cannot end, so the pool stays over.
    createStore(new PushBufferPool(32 * MIB, 0.5, 0.25), heldWrites);
    PartitionState partition = fill(APP, 0, 0, 20);
    startFlushManager(Long.MAX_VALUE);
    try {
      assertTrue(writing.await(20, TimeUnit.SECONDS), "the first round queued a flush");
      long before = flushManager.roundsPlanned();
      long start = System.nanoTime();
      for (int i = 0; i < 20_000; i++) {
        flushManager.afterPush(partition);
      }
      long elapsed = System.nanoTime() - start;
      // One round may be asked for and not yet started; the planner's own timer adds its rounds.
      long allowed =
          2
              + elapsed / FlushManager.PUSH_ROUND_GAP_NANOS
              + elapsed / TimeUnit.MILLISECONDS.toNanos(50);
      long asked = flushManager.roundsPlanned() - before;
      assertTrue(asked <= allowed, asked + " rounds in " + elapsed / 1_000 + " us of pushes");
    } finally {
      release.countDown();
    }
    waitUntil(() -> partition.memoryBytes() == 0, "the partition is flushed");
    waitUntil(() -> flushManager.queuedFlushes() == 0, "flushes to end");
  }

  /** File access whose opens for writing report themselves and then wait for {@code release}. */
  private static FileIo appendsHeldUntil(CountDownLatch opening, CountDownLatch release) {
    return new FileIo() {
      @Override
      public FileChannel openForAppend(Path p) throws IOException {
        opening.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return FileIo.DEFAULT.openForAppend(p);
      }

      @Override
      public FileChannel openForRead(Path p) throws IOException {
        return FileIo.DEFAULT.openForRead(p);
      }
    };
  }

  /**
   * Waits until a whole planning round ran from start to end after this call, and the flushes it
   * queued ended. A round counts itself as it starts and rounds run one at a time, so once the
   * second round from now started, the first, which started after this call, is over.
   */
  private void awaitNextRound() throws InterruptedException {
    long second = flushManager.roundsPlanned() + 2;
    waitUntil(() -> flushManager.roundsPlanned() >= second, "a planning round");
    waitUntil(() -> flushManager.queuedFlushes() == 0, "the round's flushes to end");
  }

  private static void waitUntil(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(5);
    }
  }
}
