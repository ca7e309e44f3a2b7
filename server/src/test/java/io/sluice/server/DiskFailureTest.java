package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.transport.RemoteException;
import io.sluice.server.storage.FaultyFileIo;
import io.sluice.server.storage.LocalDisk;
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
    FaultyFileIo io = new FaultyFileIo()
        .failWritesAfter(dir.resolve("d1"), 100_000, "No space left on device");
    ShuffleServer server = new ShuffleServer(TestServers.conf(dir,
        Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k")), io);
    try (ServerTestClient client = new ServerTestClient("127.0.0.1", server.port())) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 8);
      Map<Long, byte[]> acked = new HashMap<>();
      Random random = new Random(3);
      long id = 0;
      for (int round = 0; round < 20; round++) {
        id = pushRound(client, random, id, acked);
      }
      waitUntil(() -> server.disks().disks().stream().anyMatch(d -> !d.isHealthy()), "a disk fails");
      LocalDisk broken = server.disks().disks().stream().filter(d -> !d.isHealthy())
          .findFirst().orElseThrow();
      assertEquals(dir.resolve("d1").toAbsolutePath(), broken.root().toAbsolutePath());
      assertTrue(String.valueOf(server.status()).contains("healthy=false"), server.status()
          .toString());
      assertAllReadBack(client, acked);

      // Now the last disk fails too: pushes are refused, never acknowledged and dropped.
      io.failOpen(dir.resolve("d2"), "Input/output error");
      io.failWritesAfter(dir.resolve("d2"), 0, "Input/output error");
      boolean refused = false;
      for (int round = 0; round < 200 && !refused; round++) {
        try {
          id = pushRound(client, random, id, acked);
        } catch (RemoteException e) {
          assertEquals(StatusCode.STORAGE_UNAVAILABLE, e.status(), e.getMessage());
          refused = true;
        }
        Thread.sleep(20);
      }
      assertTrue(refused, "pushes must be refused once no disk can take data");
      assertFalse(server.disks().disks().stream().anyMatch(LocalDisk::isHealthy));
      // Blocks acknowledged before the refusal are still served (from memory or disk).
      assertAllReadBack(client, acked);
    } finally {
      server.close();
    }
  }

  private static long pushRound(ServerTestClient client, Random random, long id,
      Map<Long, byte[]> acked) throws Exception {
    int partition = random.nextInt(8);
    byte[] data = new byte[20_000 + random.nextInt(20_000)];
    random.nextBytes(data);
    client.push(APP, 0, List.of(new BlockDescriptor(partition, id, 7, data.length, data.length,
        0)), new byte[][] {data});
    acked.put(id, data);
    return id + 1;
  }

  private static void assertAllReadBack(ServerTestClient client, Map<Long, byte[]> acked)
      throws Exception {
    Map<Long, byte[]> got = new HashMap<>();
    for (int p = 0; p < 8; p++) {
      got.putAll(client.readPartition(APP, 0, p));
    }
    assertEquals(acked.keySet(), got.keySet());
    for (Map.Entry<Long, byte[]> e : acked.entrySet()) {
      assertArrayEquals(e.getValue(), got.get(e.getKey()), "block " + e.getKey());
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
