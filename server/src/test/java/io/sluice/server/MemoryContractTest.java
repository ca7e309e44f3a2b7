package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.StatusCode;
import io.sluice.server.memory.PushBufferPool;
import java.nio.file.Files;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory contract under heavy oversubscription: 16 clients push 12x the push budget as fast as
 * they can; the server's direct memory, sampled throughout, never passes {@code buffer.capacity +
 * read.buffer.capacity} plus the documented network overhead, and every acknowledged block reads
 * back intact. (The benchmark pushes the full 4 GiB.)
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
    SluiceConf conf =
        TestServers.conf(
            dir,
            Map.of(
                ServerOptions.BUFFER_CAPACITY.key(),
                String.valueOf(BUFFER_CAPACITY),
                ServerOptions.READ_BUFFER_CAPACITY.key(),
                String.valueOf(READ_CAPACITY),
                ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                "8m",
                // One writer, so that flushing falls behind 16 pushers and the pool must refuse
                // some.
                ServerOptions.FLUSH_THREADS_PER_DISK.key(),
                "1"));
    ShuffleServer server = new ShuffleServer(conf);
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicLong peak = new AtomicLong();
    AtomicLong peakPush = new AtomicLong();
    Thread sampler =
        new Thread(
            () -> {
              while (sampling.get()) {
                long push = server.pushPool().usedBytes();
                long total = push + server.networkAllocator().metric().usedDirectMemory();
                peak.accumulateAndGet(total, Math::max);
                peakPush.accumulateAndGet(push, Math::max);
                Thread.onSpinWait();
              }
            },
            "memory-sampler");
    sampler.start();
    // Partition -> block -> CRC32C of every acknowledged block.
    Map<Integer, Map<BlockKey, Integer>> expectedCrc = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try (ServerTestClient admin = new ServerTestClient(server)) {
      admin.registerApp(APP);
      admin.registerShuffle(APP, 0, PARTITIONS);
      List<Future<?>> pushers = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int clientId = c;
        pushers.add(
            pool.submit(
                () -> {
                  push(server, clientId, expectedCrc);
                  return null;
                }));
      }
      for (Future<?> f : pushers) {
        f.get(10, TimeUnit.MINUTES);
      }
      sampling.set(false);
      sampler.join();

      Double refused =
          server
              .metrics()
              .registry()
              .getSampleValue(
                  "sluice_server_push_rejections_total",
                  new String[] {"reason"},
                  new String[] {StatusCode.NO_BUFFER.name()});
      long retries = refused == null ? 0 : refused.longValue();
      Double waited = server.metrics().registry().getSampleValue("sluice_server_push_waits_total");
      long waits = waited == null ? 0 : waited.longValue();
      long limit =
          BUFFER_CAPACITY
              + PushBufferPool.alignmentSlack(BUFFER_CAPACITY)
              + READ_CAPACITY
              + ServerJvmOptions.networkAllowance(conf);
      System.out.printf(
          "pushed %d MiB through a %d MiB budget; peak push pool %d MiB, peak "
              + "server direct memory %d MiB (limit %d MiB); %d pushes answered NO_BUFFER, %d held "
              + "back unread until the pool had room%n",
          TOTAL_BYTES >> 20,
          BUFFER_CAPACITY >> 20,
          peakPush.get() >> 20,
          peak.get() >> 20,
          limit >> 20,
          retries,
          waits);
      assertTrue(
          peakPush.get() <= BUFFER_CAPACITY,
          "push pool peaked at " + peakPush.get() + " > " + BUFFER_CAPACITY);
      assertTrue(peak.get() <= limit, "server direct memory peaked at " + peak.get());
      // The clients outran the disk: the pool passed its high watermark, where flushing, waits
      // and refusals are what keep it within its capacity (a fast disk may need no refusal).
      long highWatermark =
          (long)
              (BUFFER_CAPACITY
                  * Double.parseDouble(ServerOptions.FLUSH_HIGH_WATERMARK.defaultValueText()));
      assertTrue(
          peakPush.get() >= highWatermark || retries + waits > 0,
          "a 12x oversubscription must have filled the pool past its high watermark");

      int blocksSeen = 0;
      int blocksExpected = 0;
      for (int p = 0; p < PARTITIONS; p++) {
        Map<BlockKey, Integer> expected = expectedCrc.getOrDefault(p, Map.of());
        Map<BlockKey, byte[]> got =
            admin.readPartition(APP, 0, p, ServerTestClient.attemptsOf(expected.keySet()));
        assertEquals(expected.keySet(), got.keySet(), "partition " + p);
        for (Map.Entry<BlockKey, byte[]> e : got.entrySet()) {
          assertEquals(
              expected.get(e.getKey()),
              Crc32c.of(e.getValue()),
              "block " + e.getKey() + " corrupted");
        }
        blocksSeen += got.size();
        blocksExpected += expected.size();
      }
      assertEquals(blocksExpected, blocksSeen, "every acknowledged block reads back once");
      // Blocks of 64 KiB and more were written to disk straight from the pool, at aligned
      // offsets: their data files hold zeros besides the blocks, which the reads skipped.
      long onDisk;
      try (Stream<Path> files = Files.walk(dir)) {
        onDisk =
            files
                .filter(f -> f.toString().endsWith(".data"))
                .mapToLong(f -> f.toFile().length())
                .sum();
      }
      double flushed = server.metrics().flushedBytes();
      assertTrue(
          onDisk > flushed && flushed > 0,
          "data files of " + onDisk + " bytes for " + flushed + " bytes of blocks flushed");
    } finally {
      sampling.set(false);
      pool.shutdownNow();
      server.close();
    }
  }

  /**
   * Pushes this client's share, as one map attempt (its id is the client's), in ~1 MiB pushes of
   * 16-256 KiB blocks through the shared push client, which retries NO_BUFFER answers; commits.
   */
  private static void push(
      ShuffleServer server, int clientId, Map<Integer, Map<BlockKey, Integer>> expectedCrc)
      throws Exception {
    Random random = new Random(clientId);
    long share = TOTAL_BYTES / CLIENTS;
    long sent = 0;
    try (ServerTestClient client = new ServerTestClient(server)) {
      MapOutputPusher pusher = client.pusher(APP, 0, PARTITIONS, clientId);
      try {
        while (sent < share) {
          int size = 16 * 1024 + random.nextInt(240 * 1024);
          byte[] bytes = new byte[size];
          random.nextBytes(bytes);
          int partition = random.nextInt(PARTITIONS);
          BlockKey key = ServerTestClient.add(pusher, clientId, partition, bytes);
          expectedCrc
              .computeIfAbsent(partition, p -> new ConcurrentHashMap<>())
              .put(key, Crc32c.of(bytes));
          sent += size;
        }
        pusher.finish();
      } catch (Exception | Error e) {
        pusher.abort();
        throw e;
      }
      pusher.commit(clientId);
    }
  }
}
