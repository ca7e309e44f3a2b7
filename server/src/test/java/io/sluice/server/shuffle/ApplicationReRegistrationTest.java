package io.sluice.server.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.server.ServerOptions;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import io.sluice.server.storage.PartitionFiles;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application registered again while the deletion of its previous incarnation is still running
 * (it expired on this server, and the driver's next heartbeat registers it again, see the client's
 * ServerRegistrar): both incarnations would use the same directory, {@code <dir>/<appId>/}, that
 * the old one's deletion removes last.
 */
class ApplicationReRegistrationTest {
  private static final String APP = "app-reregistered";

  @TempDir Path dir;
  private PushBufferPool pool;
  private DiskManager disks;
  private ShuffleStore store;
  private PartitionFlusher flusher;

  @BeforeEach
  void setUp() {
    pool = new PushBufferPool(64L << 20, 0.75, 0.5);
    disks = new DiskManager(List.of(dir.resolve("d1")), 0, 1, FileIo.DEFAULT);
    store =
        ShuffleStore.onLocalDisks(
            disks, FileIo.DEFAULT, pool::free, System::nanoTime, StoreLimits.unlimited());
    flusher =
        new PartitionFlusher(pool, new ServerMetrics(), ServerOptions.FlushDirect.LAST_COPIES);
  }

  @AfterEach
  void tearDown() {
    store.unregisterApplication(APP);
    disks.close();
  }

  /**
   * The old incarnation's deletion ends by removing the whole application directory; a new
   * incarnation writing there meanwhile would lose acknowledged blocks. So registering again waits
   * (retriably) until the deletion ended, and the new incarnation's files are then its own.
   */
  @Test
  void registeringAgainWaitsForTheOldIncarnationsDeletionAndKeepsItsFiles() throws Exception {
    store.registerApplication(APP, "tester", null);
    PartitionState old = store.registerShuffle(APP, 0, 1).partition(0);
    flush(old, add(old, 1));

    // The old incarnation's deletion waits for a flush of it still running.
    old.storageLock().lock();
    CompletableFuture<Void> deletion;
    try {
      deletion = CompletableFuture.runAsync(() -> store.unregisterApplication(APP));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!store.applications().isEmpty()) {
        assertTrue(System.nanoTime() < deadline, "the deletion never started");
        Thread.onSpinWait();
      }
      RequestRejectedException refused =
          assertThrows(
              RequestRejectedException.class, () -> store.registerApplication(APP, "tester", null));
      assertEquals(StatusCode.BUSY, refused.status());
      assertTrue(refused.status().isRetriable());
    } finally {
      old.storageLock().unlock();
    }
    deletion.get(20, TimeUnit.SECONDS);

    store.registerApplication(APP, "tester", null);
    PartitionState fresh = store.registerShuffle(APP, 1, 1).partition(0);
    byte[] written = add(fresh, 2);
    flush(fresh, written);
    assertArrayEquals(written, readAll(store.shuffle(APP, 1).existingPartition(0).files()));
  }

  /**
   * The same for a shuffle: Spark 4.1 removes a shuffle and may register the same id again at once
   * (the driver revives it); the old deletion moves the shuffle's directory away last, and the new
   * registration's files must not go with it.
   */
  @Test
  void registeringAShuffleAgainWaitsForItsOldDeletionAndKeepsItsFiles() throws Exception {
    store.registerApplication(APP, "tester", null);
    PartitionState old = store.registerShuffle(APP, 0, 1).partition(0);
    flush(old, add(old, 1));

    old.storageLock().lock();
    CompletableFuture<Void> deletion;
    try {
      deletion = CompletableFuture.runAsync(() -> store.unregisterShuffle(APP, 0));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (store.applications().iterator().next().shuffle(0) != null) {
        assertTrue(System.nanoTime() < deadline, "the deletion never started");
        Thread.onSpinWait();
      }
      RequestRejectedException refused =
          assertThrows(RequestRejectedException.class, () -> store.registerShuffle(APP, 0, 1));
      assertEquals(StatusCode.BUSY, refused.status());
    } finally {
      old.storageLock().unlock();
    }
    deletion.get(20, TimeUnit.SECONDS);

    PartitionState fresh = store.registerShuffle(APP, 0, 1).partition(0);
    byte[] written = add(fresh, 2);
    flush(fresh, written);
    assertArrayEquals(written, readAll(store.shuffle(APP, 0).existingPartition(0).files()));
  }

  @Test
  void aDeletedApplicationsFilesCannotBeReadAnyMore() throws Exception {
    store.registerApplication(APP, "tester", null);
    PartitionState partition = store.registerShuffle(APP, 0, 1).partition(0);
    flush(partition, add(partition, 3));
    PartitionFiles files = partition.files();
    store.unregisterApplication(APP);
    assertEquals(0, files.dataLength(), "readers see an empty partition");
    assertEquals(0, pool.allocatedBytes());
    assertThrows(IllegalArgumentException.class, () -> files.data(0, 1));
  }

  private byte[] add(PartitionState partition, long seed) {
    byte[] bytes = new byte[100_000];
    new Random(seed).nextBytes(bytes);
    ByteBuf buf = pool.tryAllocate(bytes.length).writeBytes(bytes);
    assertTrue(
        partition.add(new BlockDescriptor(0, seed, 0, bytes.length, bytes.length, 0), buf, false));
    return bytes;
  }

  private void flush(PartitionState partition, byte[] expected) {
    assertTrue(partition.tryQueueFlush());
    flusher.flush(partition);
    assertEquals(0, partition.memoryBytes());
    assertEquals(expected.length, partition.files().dataLength());
  }

  private static byte[] readAll(PartitionFiles files) throws Exception {
    ManagedBuffer data = files.data(0, (int) files.dataLength());
    try (InputStream in = data.createInputStream()) {
      return in.readAllBytes();
    } finally {
      data.release();
    }
  }
}
