package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.message.BlockDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory contract under heavy oversubscription: 16 clients push 12x the push budget as fast as
 * they can; the server's direct memory, sampled throughout, never passes
 * {@code buffer.capacity + read.buffer.capacity} plus the documented network overhead, and every
 * acknowledged block reads back intact. (The benchmark pushes the full 4 GiB.)
 */
class MemoryContractTest {
  private static final String APP = "app-memory-contract";
  private static final long BUFFER_CAPACITY = 128L << 20;
  private static final long READ_CAPACITY = 32L << 20;
  private static final int CLIENTS = 16;
  private static final long TOTAL_BYTES = 12 * BUFFER_CAPACITY;
  private static final int PARTITIONS = 64;

  @TempDir Path dir;

  @Test
  void directMemoryStaysWithinBudgetAndNothingIsLost() throws Exception {
    ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of(
        ServerOptions.BUFFER_CAPACITY.key(), String.valueOf(BUFFER_CAPACITY),
        ServerOptions.READ_BUFFER_CAPACITY.key(), String.valueOf(READ_CAPACITY),
        ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "8m")));
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicLong peak = new AtomicLong();
    AtomicLong peakPush = new AtomicLong();
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        long push = server.pushPool().usedBytes();
        long total = push + server.networkAllocator().metric().usedDirectMemory();
        peak.accumulateAndGet(total, Math::max);
        peakPush.accumulateAndGet(push, Math::max);
        Thread.onSpinWait();
      }
    }, "memory-sampler");
    sampler.start();
    Map<Long, Integer> expectedCrc = new ConcurrentHashMap<>();
    Map<Long, Integer> partitionOf = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    long retries;
    try (ServerTestClient admin = new ServerTestClient("127.0.0.1", server.port())) {
      admin.registerApp(APP);
      admin.registerShuffle(APP, 0, PARTITIONS);
      List<Future<Long>> pushers = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int clientId = c;
        pushers.add(pool.submit(() -> push(server, clientId, expectedCrc, partitionOf)));
      }
      retries = 0;
      for (Future<Long> f : pushers) {
        retries += f.get(10, TimeUnit.MINUTES);
      }
      sampling.set(false);
      sampler.join();

      long limit = BUFFER_CAPACITY + READ_CAPACITY + ServerJvmOptions.NETWORK_OVERHEAD_BYTES;
      System.out.printf("pushed %d MiB through a %d MiB budget; peak push pool %d MiB, peak "
          + "server direct memory %d MiB (limit %d MiB); %d NO_BUFFER retries%n",
          TOTAL_BYTES >> 20, BUFFER_CAPACITY >> 20, peakPush.get() >> 20, peak.get() >> 20,
          limit >> 20, retries);
      assertTrue(peakPush.get() <= BUFFER_CAPACITY,
          "push pool peaked at " + peakPush.get() + " > " + BUFFER_CAPACITY);
      assertTrue(peak.get() <= limit, "server direct memory peaked at " + peak.get());
      assertTrue(retries > 0, "a 12x oversubscription must have met back-pressure");

      int blocksSeen = 0;
      for (int p = 0; p < PARTITIONS; p++) {
        Map<Long, byte[]> got = admin.readPartition(APP, 0, p);
        for (Map.Entry<Long, byte[]> e : got.entrySet()) {
          assertEquals(expectedCrc.get(e.getKey()), Crc32c.of(e.getValue()),
              "block " + e.getKey() + " corrupted");
          assertEquals(p, partitionOf.get(e.getKey()));
        }
        blocksSeen += got.size();
      }
      assertEquals(expectedCrc.size(), blocksSeen, "every acknowledged block reads back once");
    } finally {
      sampling.set(false);
      pool.shutdownNow();
      server.close();
    }
  }

  /** Pushes this client's share in ~1 MiB frames of 16-256 KiB blocks; returns NO_BUFFER retries. */
  private static long push(ShuffleServer server, int clientId, Map<Long, Integer> expectedCrc,
      Map<Long, Integer> partitionOf) throws Exception {
    Random random = new Random(clientId);
    long share = TOTAL_BYTES / CLIENTS;
    long sent = 0;
    long nextId = (long) clientId << 40;
    try (ServerTestClient client = new ServerTestClient("127.0.0.1", server.port())) {
      while (sent < share) {
        List<BlockDescriptor> blocks = new ArrayList<>();
        List<byte[]> data = new ArrayList<>();
        int frame = 0;
        while (frame < (1 << 20)) {
          int size = 16 * 1024 + random.nextInt(240 * 1024);
          byte[] bytes = new byte[size];
          random.nextBytes(bytes);
          int partition = random.nextInt(PARTITIONS);
          long id = nextId++;
          int crc = Crc32c.of(bytes);
          blocks.add(new BlockDescriptor(partition, id, clientId, size, size, crc));
          data.add(bytes);
          expectedCrc.put(id, crc);
          partitionOf.put(id, partition);
          frame += size;
        }
        client.push(APP, 0, blocks, data.toArray(new byte[0][]));
        sent += frame;
      }
      return client.noBufferRetries.get();
    }
  }
}
