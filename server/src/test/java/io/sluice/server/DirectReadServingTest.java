package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.client.core.push.PushSettings;
import io.sluice.server.memory.ReadBuffers;
import io.sluice.server.storage.Blocks;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data flushed with direct I/O (the default, {@code flush.direct all}) is read back with direct I/O
 * on the disk's read threads, byte for byte, and its read memory is given back.
 */
class DirectReadServingTest {
  private static final String APP = "app-direct-read";
  private static final int BLOCKS = 60;
  private static final int BLOCK = 150 * 1024;

  @TempDir Path dir;

  @Test
  void flushedDataIsReadOffTheEventLoopsByteForByte() throws Exception {
    assumeTrue(Blocks.directIoWorks(dir), "no O_DIRECT on " + dir);
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(
                    dir,
                    Map.of(
                        ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                        "64k",
                        // A name of its own, for its read threads' names.
                        ServerOptions.LOCAL_DIRS.key(),
                        dir.resolve("direct-disk").toString())));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 1);
      MapOutputPusher pusher =
          client.pusher(
              APP,
              0,
              ServerTestClient.locations(1, client.server()),
              1L,
              new PushSettings(512 * 1024, 2 << 20, ServerTestClient.BACKOFF, 0));
      Map<BlockKey, byte[]> pushed = new HashMap<>();
      Random random = new Random(11);
      for (int i = 0; i < BLOCKS; i++) {
        // Sizes that leave blocks at unaligned offsets of the file, and some across 1 MiB marks.
        byte[] data = new byte[BLOCK + random.nextInt(5000)];
        random.nextBytes(data);
        pushed.put(ServerTestClient.add(pusher, 1L, 0, data), data);
      }
      pusher.finish();
      pusher.commit(0);
      long total = pushed.values().stream().mapToLong(b -> b.length).sum();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (client.dataOnDisk(APP, 0, 0) < total) {
        assertTrue(System.nanoTime() < deadline, "flushes did not write the blocks in a minute");
        Thread.sleep(10);
      }

      Map<BlockKey, byte[]> read = client.readPartition(APP, 0, 0, 1L);
      assertEquals(BLOCKS, read.size());
      for (Map.Entry<BlockKey, byte[]> e : pushed.entrySet()) {
        assertArrayEquals(e.getValue(), read.get(e.getKey()), e.getKey().toString());
      }
      assertTrue(
          Thread.getAllStackTraces().keySet().stream()
              .anyMatch(t -> t.getName().startsWith("sluice-read-direct-disk-")),
          "the disk's read thread read the data");
      assertTrue(
          server.readBudget().usedBytes() >= ReadBuffers.PIECE_BYTES,
          "into direct reads' buffers, kept for the next read: " + server.readBudget().usedBytes());
      // What direct reads keep for the next one counts too: free it to see nothing else is held.
      server.readBudget().directReads().freeUnused();
      while (server.readBudget().usedBytes() != 0) {
        assertTrue(
            System.nanoTime() < deadline,
            server.readBudget().usedBytes() + " bytes of read memory still held");
        Thread.sleep(10);
      }
    }
  }
}
