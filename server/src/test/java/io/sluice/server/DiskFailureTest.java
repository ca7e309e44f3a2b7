package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.common.transport.TransportClient;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.storage.FaultyFileIo;
import io.sluice.server.storage.LocalDisk;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.RestartManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disks that fill up or fail, injected through the storage layer's file I/O: writes move to another
 * disk, and when none is left pushes are refused; an acknowledged block is never lost.
 */
class DiskFailureTest {
  private static final String APP = "app-disk-failure";

  @TempDir Path dir;

  @Test
  void fullDiskIsTakenOutAndNoAcknowledgedBlockIsLost() throws Exception {
    FaultyFileIo io =
        new FaultyFileIo().failWritesAfter(dir.resolve("d1"), 100_000, "No space left on device");
    ShuffleServer server =
        new ShuffleServer(
            TestServers.conf(dir, Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k")),
            io);
    try (ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 8);
      Map<Integer, Map<BlockKey, byte[]>> acked = new HashMap<>();
      Random random = new Random(3);
      long attempt = 0;
      for (int round = 0; round < 20; round++) {
        pushRound(client, random, attempt++, acked);
      }
      waitUntil(
          () -> server.disks().disks().stream().anyMatch(d -> !d.isHealthy()), "a disk fails");
      LocalDisk broken =
          server.disks().disks().stream().filter(d -> !d.isHealthy()).findFirst().orElseThrow();
      assertEquals(dir.resolve("d1").toAbsolutePath(), broken.root().toAbsolutePath());
      assertTrue(
          String.valueOf(server.status()).contains("healthy=false"), server.status().toString());
      assertAllReadBack(client, acked);

      // Now the last disk fails too: pushes are refused, never acknowledged and dropped.
      io.failOpen(dir.resolve("d2"), "Input/output error");
      io.failWritesAfter(dir.resolve("d2"), 0, "Input/output error");
      boolean refused = false;
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!refused && System.nanoTime() < deadline) {
        double pushed = server.metrics().pushedBytes();
        try {
          pushRound(client, random, attempt++, acked);
          // Paced so that flushes (and their failures) keep up with the pushes.
          waitUntil(
              () -> server.disks().disks().stream().allMatch(d -> d.pendingFlushes() == 0),
              "flushes to run");
        } catch (IOException e) {
          assertEquals(StatusCode.STORAGE_UNAVAILABLE, ServerTestClient.statusOf(e), e.toString());
          assertEquals(pushed, server.metrics().pushedBytes(), "a refused push keeps nothing");
          refused = true;
        }
      }
      assertTrue(refused, "pushes must be refused once no disk can take data");
      assertFalse(server.disks().disks().stream().anyMatch(LocalDisk::isHealthy));
      // Blocks acknowledged before the refusal are still served (from memory or disk).
      assertAllReadBack(client, acked);
    } finally {
      server.close();
    }
  }

  @Test
  void aLocalDirThatDisappearsLeavesRotationAtTheFirstFailedReadAndIsNotCreatedAgain()
      throws Exception {
    ShuffleServer server =
        new ShuffleServer(
            TestServers.conf(dir, Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k")));
    try (ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 8);
      Map<Integer, Map<BlockKey, byte[]>> acked = new HashMap<>();
      Random random = new Random(4);
      long attempt = 0;
      for (int round = 0; round < 40; round++) {
        pushRound(client, random, attempt++, acked);
      }
      waitUntil(
          () -> server.disks().disks().stream().allMatch(d -> d.pendingFlushes() == 0),
          "flushes to end");
      Path d1 = dir.resolve("d1");
      try (var files = Files.walk(d1)) {
        assertTrue(
            files.anyMatch(f -> f.toString().endsWith(".data")),
            "some partitions were flushed to d1");
      }
      Path gone = dir.resolve("d1.failed");
      // As a failed or unmounted disk: the directory is no longer there.
      Files.move(d1, gone);
      int unreadable = 0;
      for (int p = 0; p < 8; p++) {
        Map<BlockKey, byte[]> expected = acked.getOrDefault(p, Map.of());
        try {
          client.readPartition(APP, 0, p, ServerTestClient.attemptsOf(expected.keySet()));
        } catch (PartitionFetchException e) {
          // The blocks on the directory that went are lost; the others are still listed.
          assertTrue(e.getMessage().contains("never arrived"), e.getMessage());
          unreadable++;
        }
      }
      assertTrue(unreadable > 0, "some partitions had files on the directory that went");
      LocalDisk first = server.disks().disks().get(0);
      assertFalse(first.isHealthy(), "a failed read takes the directory out of rotation");
      assertTrue(server.disks().disks().get(1).isHealthy());

      // New data goes to the other directory; the one that went is not created again.
      double flushedBefore = server.metrics().flushedBytes();
      Map<Integer, Map<BlockKey, byte[]>> later = new HashMap<>();
      for (int round = 0; round < 20; round++) {
        pushRound(client, random, attempt++, later);
      }
      waitUntil(
          () -> server.disks().disks().stream().allMatch(d -> d.pendingFlushes() == 0),
          "flushes to end");
      assertTrue(server.metrics().flushedBytes() > flushedBefore, "new blocks were flushed");
      assertFalse(Files.exists(d1), "the directory that went stays gone");
      Files.move(gone, d1);
    } finally {
      server.close();
    }
  }

  /** One map attempt that writes one block to a random partition, through the push client. */
  @Test
  void anIndexPageOnADiskThatVanishedIsSkippedNotFailed() throws Exception {
    FaultyFileIo io = new FaultyFileIo();
    ShuffleServer server =
        new ShuffleServer(
            TestServers.conf(dir, Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k")),
            io);
    try (ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 1);
      Random random = new Random(5);
      pushBlocks(client, random, 1L, 16);
      waitUntil(() -> settled(server), "the first blocks are flushed");
      Path first = filesOf(server).currentDisk().root();
      // Writes to that disk fail from now on: the partition goes on in a file on the other disk.
      io.failWritesAfter(first, 0, "No space left on device");
      pushBlocks(client, random, 2L, 16);
      waitUntil(
          () -> settled(server) && !filesOf(server).currentDisk().root().equals(first),
          "blocks flushed to the other disk");
      int total = filesOf(server).blockCount();
      int elsewhere =
          filesOf(server).generationsForRestart().stream()
              .filter(g -> !g.dataFile().startsWith(first))
              .mapToInt(RestartManifest.Generation::blockCount)
              .sum();
      assertTrue(elsewhere > 0 && elsewhere < total, elsewhere + " of " + total);
      // The first disk vanishes: a page of its file finds out, and the server pages on past it.
      Files.move(first, first.resolveSibling(first.getFileName() + "-gone"));
      FetchIndexPageResponse page =
          client.send(
              new FetchIndexPageRequest(TransportClient.nextRequestId(), APP, 0, 0, 0, 1 << 20),
              FetchIndexPageResponse.class);
      try {
        assertEquals(total, page.nextEntry());
        assertFalse(page.hasMore());
        assertEquals(
            (long) elsewhere * IndexEntry.SIZE,
            page.body().size(),
            "the entries of the file on the other disk");
      } finally {
        ServerTestClient.release(page);
      }
    } finally {
      server.close();
    }
  }

  /** Flushed down to less than one flush's worth in memory: nothing more is being written. */
  private static boolean settled(ShuffleServer server) {
    PartitionState p = server.store().shuffle(APP, 0).existingPartition(0);
    return p.files() != null && p.files().blockCount() > 0 && p.memoryBytes() < 64 * 1024;
  }

  private static PartitionFiles filesOf(ShuffleServer server) {
    return server.store().shuffle(APP, 0).existingPartition(0).files();
  }

  private static void pushBlocks(ServerTestClient client, Random random, long attempt, int count)
      throws Exception {
    Map<Integer, List<byte[]>> blocks = new HashMap<>();
    for (int i = 0; i < count; i++) {
      byte[] data = new byte[16 * 1024];
      random.nextBytes(data);
      blocks.computeIfAbsent(0, p -> new java.util.ArrayList<>()).add(data);
    }
    client.writeMapOutput(APP, 0, 1, (int) attempt, attempt, blocks);
  }

  private static void pushRound(
      ServerTestClient client,
      Random random,
      long attempt,
      Map<Integer, Map<BlockKey, byte[]>> acked)
      throws Exception {
    int partition = random.nextInt(8);
    byte[] data = new byte[20_000 + random.nextInt(20_000)];
    random.nextBytes(data);
    Map<Integer, List<BlockKey>> keys =
        client.writeMapOutput(APP, 0, 8, (int) attempt, attempt, Map.of(partition, List.of(data)));
    acked.computeIfAbsent(partition, p -> new HashMap<>()).put(keys.get(partition).get(0), data);
  }

  /**
   * Reads every partition, counting the attempts whose pushes to it were acknowledged: exactly the
   * acknowledged blocks come back.
   */
  private static void assertAllReadBack(
      ServerTestClient client, Map<Integer, Map<BlockKey, byte[]>> acked) throws Exception {
    for (int p = 0; p < 8; p++) {
      Map<BlockKey, byte[]> expected = acked.getOrDefault(p, Map.of());
      Map<BlockKey, byte[]> got =
          client.readPartition(APP, 0, p, ServerTestClient.attemptsOf(expected.keySet()));
      assertEquals(expected.keySet(), got.keySet(), "partition " + p);
      for (Map.Entry<BlockKey, byte[]> e : expected.entrySet()) {
        assertArrayEquals(e.getValue(), got.get(e.getKey()), "block " + e.getKey());
      }
    }
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(10);
    }
  }
}
