package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.server.storage.RestartManifest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server stopped cleanly serves what it held again when it starts on the same local directories
 * (a rolling restart loses nothing); what it recorded is checked before it is trusted, and read
 * only once.
 */
class RestartRecoveryTest {
  private static final String APP = "app-20261125-0001";
  private static final int PARTITIONS = 6;
  private static final long[] ATTEMPTS = {100, 101, 102};

  @TempDir Path dir;

  private ShuffleServer start(boolean recovery) throws Exception {
    return new ShuffleServer(
        TestServers.conf(
            dir,
            Map.of(
                ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                "64k",
                ServerOptions.RECOVERY_ENABLED.key(),
                String.valueOf(recovery))));
  }

  /**
   * Three map attempts into six partitions: partitions 0-2 get blocks large enough to be flushed
   * while the server runs, 3-5 small ones that are still in memory when it stops.
   */
  private static Map<Integer, Map<BlockKey, byte[]>> write(ServerTestClient client)
      throws Exception {
    client.registerApp(APP);
    client.registerShuffle(APP, 0, PARTITIONS);
    Random random = new Random(7);
    Map<Integer, Map<BlockKey, byte[]>> expected = new HashMap<>();
    for (int m = 0; m < ATTEMPTS.length; m++) {
      Map<Integer, List<byte[]>> output = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        byte[] bytes = new byte[p < 3 ? 70_000 : 1_000 + random.nextInt(2_000)];
        random.nextBytes(bytes);
        output.put(p, List.of(bytes));
      }
      Map<Integer, List<BlockKey>> keys =
          client.writeMapOutput(APP, 0, PARTITIONS, m, ATTEMPTS[m], output);
      keys.forEach(
          (p, list) ->
              expected
                  .computeIfAbsent(p, k -> new HashMap<>())
                  .put(list.get(0), output.get(p).get(0)));
    }
    return expected;
  }

  /** Writes the map outputs through a server that then stops cleanly; returns what it acked. */
  private Map<Integer, Map<BlockKey, byte[]>> writeAndStopCleanly() throws Exception {
    ShuffleServer server = start(true);
    try (ServerTestClient client = new ServerTestClient(server)) {
      return write(client);
    } finally {
      server.close();
    }
  }

  /** Where a clean stop records what the server held (its first local dir, healthy here). */
  private Path record() {
    return RestartManifest.locations(List.of(dir.resolve("d1"))).get(0);
  }

  private static void assertServes(
      ServerTestClient client, int partition, Map<BlockKey, byte[]> expected) throws Exception {
    Map<BlockKey, byte[]> got = client.readPartition(APP, 0, partition, ATTEMPTS);
    assertEquals(expected.keySet(), got.keySet(), "partition " + partition);
    for (Map.Entry<BlockKey, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), got.get(e.getKey()), "block " + e.getKey());
    }
    assertArrayEquals(new int[] {1, 1, 1}, client.committedCounts(APP, 0, partition, ATTEMPTS));
  }

  @Test
  void aCleanStopServesEveryCommittedBlockAgainAfterTheRestart() throws Exception {
    Map<Integer, Map<BlockKey, byte[]>> expected;
    ShuffleServer first = start(true);
    try (ServerTestClient client = new ServerTestClient(first)) {
      expected = write(client);
      assertTrue(first.pushPool().allocatedBytes() > 0, "some blocks are still in memory");
    } finally {
      first.close();
    }
    Path manifest = record();
    assertTrue(Files.isRegularFile(manifest), "a clean stop records what the server held");

    ShuffleServer second = start(true);
    try (ServerTestClient client = new ServerTestClient(second)) {
      assertFalse(Files.exists(manifest), "the record is read once: a crash now starts empty");
      for (int p = 0; p < PARTITIONS; p++) {
        assertServes(client, p, expected.get(p));
      }
      // The restored partitions take new map output, in a file pair of their own.
      byte[] late = new byte[90_000];
      new Random(8).nextBytes(late);
      BlockKey key =
          client.writeMapOutput(APP, 0, PARTITIONS, 3, 103, Map.of(0, List.of(late))).get(0).get(0);
      Map<BlockKey, byte[]> got = client.readPartition(APP, 0, 0, 100, 101, 102, 103);
      assertEquals(4, got.size());
      assertArrayEquals(late, got.get(key));

      client.unregisterApp(APP);
      awaitNoDataFiles();
    } finally {
      second.close();
    }
  }

  @Test
  void aStartThatFailsAfterReadingTheRecordLeavesItForTheNextStart() throws Exception {
    Map<Integer, Map<BlockKey, byte[]>> expected = writeAndStopCleanly();
    Path manifest = record();
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // The record is read, then the port cannot be bound: nothing may be lost by that.
      assertThrows(
          Exception.class,
          () ->
              new ShuffleServer(
                  TestServers.conf(
                      dir,
                      Map.of(ServerOptions.PORT.key(), String.valueOf(taken.getLocalPort())))));
    }
    assertTrue(Files.isRegularFile(manifest), "the record outlives a start that failed");
    ShuffleServer second = start(true);
    try (ServerTestClient client = new ServerTestClient(second)) {
      for (int p = 0; p < PARTITIONS; p++) {
        assertServes(client, p, expected.get(p));
      }
    } finally {
      second.close();
    }
  }

  @Test
  void withRecoveryOffAStopDeletesEverything() throws Exception {
    ShuffleServer first = start(false);
    try (ServerTestClient client = new ServerTestClient(first)) {
      write(client);
    } finally {
      first.close();
    }
    assertFalse(Files.exists(record()));
    ShuffleServer second = start(true);
    try {
      assertTrue(second.store().applications().isEmpty());
      awaitNoDataFiles();
    } finally {
      second.close();
    }
  }

  @Test
  void aPartitionWhoseRecordDoesNotMatchItsFilesIsLeftOutAndNothingOutsideIsTouched()
      throws Exception {
    Map<Integer, Map<BlockKey, byte[]>> expected = writeAndStopCleanly();
    Path manifest = record();
    List<RestartManifest.Application> apps = RestartManifest.read(manifest);
    RestartManifest.Shuffle shuffle = apps.get(0).shuffles().get(0);
    Path outside = Files.writeString(dir.resolve("operator-file.data"), "keep me");
    List<RestartManifest.Partition> edited = new ArrayList<>();
    for (RestartManifest.Partition p : shuffle.partitions()) {
      if (p.partitionId() == 0) {
        // Pointed at a file outside the partition's directory.
        RestartManifest.Generation g = p.generations().get(0);
        p =
            new RestartManifest.Partition(
                0,
                List.of(
                    new RestartManifest.Generation(
                        outside, g.indexFile(), 0, g.dataLength(), g.blockCount())),
                p.attempts(),
                p.counts());
      } else if (p.partitionId() == 1) {
        // Its data file cut short after the stop.
        Path data = p.generations().get(0).dataFile();
        Files.write(data, Arrays.copyOf(Files.readAllBytes(data), 10));
      }
      edited.add(p);
    }
    RestartManifest.write(
        manifest,
        List.of(
            new RestartManifest.Application(
                apps.get(0).appId(),
                apps.get(0).user(),
                apps.get(0).secret(),
                List.of(
                    new RestartManifest.Shuffle(
                        shuffle.shuffleId(), shuffle.numPartitions(), edited)))));

    ShuffleServer second = start(true);
    try (ServerTestClient client = new ServerTestClient(second)) {
      for (int p : new int[] {0, 1}) {
        int partition = p;
        assertThrows(
            PartitionFetchException.class,
            () -> client.readPartition(APP, 0, partition, ATTEMPTS),
            "partition " + p);
      }
      for (int p = 2; p < PARTITIONS; p++) {
        assertServes(client, p, expected.get(p));
      }
      client.unregisterApp(APP);
      awaitNoDataFiles();
      assertEquals("keep me", Files.readString(outside));
    } finally {
      second.close();
    }
  }

  @Test
  void anUnreadableRecordStartsTheServerEmpty() throws Exception {
    writeAndStopCleanly();
    Path manifest = record();
    Files.writeString(manifest, "garbage where the record was");
    ShuffleServer second = start(true);
    try {
      assertTrue(second.store().applications().isEmpty());
      assertFalse(Files.exists(manifest));
      awaitNoDataFiles();
    } finally {
      second.close();
    }
  }

  private void awaitNoDataFiles() throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!dataFiles().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("files left: " + dataFiles());
      }
      Thread.sleep(10);
    }
  }

  /**
   * The data and index files under the local dirs, the trash included. The background deleter
   * removes files while this walks, so files and directories that vanish meanwhile are skipped.
   */
  private List<Path> dataFiles() throws Exception {
    List<Path> files = new ArrayList<>();
    for (String d : List.of("d1", "d2")) {
      if (!Files.isDirectory(dir.resolve(d))) {
        continue;
      }
      Files.walkFileTree(
          dir.resolve(d),
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
              if (f.toString().endsWith(".data") || f.toString().endsWith(".index")) {
                files.add(f);
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) {
              return FileVisitResult.CONTINUE;
            }
          });
    }
    return files;
  }
}
