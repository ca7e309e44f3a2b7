package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.client.core.push.FixedLocations;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.client.core.push.PushSettings;
import io.sluice.client.core.read.FetchSettings;
import io.sluice.client.core.read.FetchedBlock;
import io.sluice.client.core.read.PartitionReader;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task's memory does not grow with the number of servers it writes to or reads from: one map task
 * pushes to 400 partitions spread over 200 servers, then one reduce task reads them all, and the
 * direct memory the task's own allocator holds in buffers stays within the documented per-task
 * budget (docs/client.md, "Memory of a task"): {@code push.max.in.flight} while pushing, 1.5 times
 * {@code fetch.max.in.flight} while reading, each plus the connections' small buffers. Reading
 * without the budget would hold the 8 partitions a reader opens at once, 1 MiB and its buffers.
 * Batches bound for 200 servers, at the push batch size each, would take 50 MiB; the budget is 2
 * MiB. The blocks' buffers are larger than their bytes, as a compressor's are, and count by their
 * size.
 */
class TaskMemoryBudgetTest {
  private static final int SERVERS = 200;
  private static final int PARTITIONS = 400;
  private static final int BLOCKS_PER_PARTITION = 16;
  private static final int BLOCK = 8 * 1024;

  /** What a compressor allocates for a block it then fills only partly (the codec's worst case). */
  private static final int BLOCK_BUFFER = 12 * 1024;

  private static final long PUSH_BUDGET = 2L << 20;

  /** Less than the 8 partitions a reader opens at once hold (1 MiB): the budget binds. */
  private static final long FETCH_BUDGET = 512 * 1024;

  /**
   * Buffers of the task's connections beside its blocks: request headers being written, and what an
   * event loop reads of an answer before it is decoded (Netty's receive buffer per read).
   */
  private static final long CONNECTION_ALLOWANCE = 256 * 1024;

  private static final String APP = "app-task-budget";

  @TempDir static Path dir;
  private static final List<ShuffleServer> servers = new ArrayList<>();

  @BeforeAll
  static void startServers() throws Exception {
    ExecutorService starter = Executors.newFixedThreadPool(4);
    try {
      List<Future<ShuffleServer>> started = new ArrayList<>();
      for (int i = 0; i < SERVERS; i++) {
        Path root = dir.resolve("server-" + i);
        started.add(
            starter.submit(
                () ->
                    new ShuffleServer(
                        TestServers.conf(
                            root,
                            Map.of(
                                ServerOptions.LOCAL_DIRS.key(), root.resolve("d1").toString(),
                                ServerOptions.HTTP_PORT.key(), "-1",
                                ServerOptions.BUFFER_CAPACITY.key(), "16m",
                                ServerOptions.READ_BUFFER_CAPACITY.key(), "4m",
                                TransportOptions.SERVER_THREADS.key(), "1")))));
      }
      for (Future<ShuffleServer> f : started) {
        servers.add(f.get(2, TimeUnit.MINUTES));
      }
    } finally {
      starter.shutdownNow();
    }
  }

  @AfterAll
  static void stopServers() throws Exception {
    ExecutorService stopper = Executors.newFixedThreadPool(4);
    try {
      for (ShuffleServer s : servers) {
        stopper.submit(s::close);
      }
    } finally {
      stopper.shutdown();
      stopper.awaitTermination(2, TimeUnit.MINUTES);
    }
  }

  @Test
  void aTaskWritingToAndReadingFrom200ServersStaysWithinItsBudget() throws Exception {
    List<PartitionLocation> locations = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      ShuffleServer s = servers.get(p % SERVERS);
      locations.add(new PartitionLocation(0, List.of(ServerTestClient.address(s))));
    }
    for (ShuffleServer s : servers) {
      try (ServerTestClient control = new ServerTestClient(s)) {
        control.registerApp(APP);
        control.registerShuffle(APP, 0, PARTITIONS);
      }
    }
    // The task's own allocator, as an executor's client has one: what it pins is the task's.
    PooledByteBufAllocator allocator = new PooledByteBufAllocator(true);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    TransportClientFactory clients =
        new TransportContext(new TransportConf(SluiceConf.empty()), "task-budget-client", allocator)
            .createClientFactory();
    try {
      long pushPeak = peakWhile(allocator, () -> push(allocator, clients, timer, locations));
      assertTrue(
          pushPeak <= PUSH_BUDGET + CONNECTION_ALLOWANCE,
          "pushing to "
              + SERVERS
              + " servers pinned "
              + pushPeak
              + " bytes; the budget is "
              + PUSH_BUDGET
              + " + "
              + CONNECTION_ALLOWANCE);
      assertTrue(pushPeak >= PUSH_BUDGET / 2, "the budget was used: " + pushPeak);

      AtomicLong blocksRead = new AtomicLong();
      long readPeak =
          peakWhile(allocator, () -> blocksRead.set(read(allocator, clients, timer, locations)));
      assertEquals((long) PARTITIONS * BLOCKS_PER_PARTITION, blocksRead.get());
      System.out.printf(
          "Task memory with %d servers: pushing pinned %d bytes at most (budget %d),"
              + " reading %d (budget %d)%n",
          SERVERS, pushPeak, PUSH_BUDGET, readPeak, FETCH_BUDGET);
      // Answers are counted by what was asked; the buffers they arrive in hold up to 1.5 times
      // their bytes (the frame decoder merges buffers a third empty), as on the server.
      long readBound = FETCH_BUDGET * 3 / 2 + CONNECTION_ALLOWANCE;
      assertTrue(
          readPeak <= readBound,
          "reading from "
              + SERVERS
              + " servers pinned "
              + readPeak
              + " bytes; the bound is 1.5 x "
              + FETCH_BUDGET
              + " + "
              + CONNECTION_ALLOWANCE);
      assertTrue(readPeak >= FETCH_BUDGET / 4, "the budget was used: " + readPeak);
    } finally {
      clients.close();
      timer.shutdownNow();
    }
  }

  private static void push(
      PooledByteBufAllocator allocator,
      TransportClientFactory clients,
      ScheduledExecutorService timer,
      List<PartitionLocation> locations)
      throws Exception {
    MapOutputPusher pusher =
        new MapOutputPusher(
            clients,
            allocator,
            timer,
            new PushSettings(256 * 1024, PUSH_BUDGET, ServerTestClient.BACKOFF, 0),
            new FixedLocations(locations),
            APP,
            0,
            PARTITIONS,
            1L);
    Random random = new Random(11);
    byte[] bytes = new byte[BLOCK];
    for (int round = 0; round < BLOCKS_PER_PARTITION; round++) {
      for (int p = 0; p < PARTITIONS; p++) {
        random.nextBytes(bytes);
        ByteBuf block = allocator.directBuffer(BLOCK_BUFFER).writeBytes(bytes);
        pusher.add(p, block, BLOCK);
      }
    }
    pusher.finish();
    pusher.commit(0);
  }

  private static long read(
      PooledByteBufAllocator allocator,
      TransportClientFactory clients,
      ScheduledExecutorService timer,
      List<PartitionLocation> locations)
      throws Exception {
    List<PartitionReader.PartitionSource> sources = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      sources.add(
          new PartitionReader.PartitionSource(p, List.of(locations.get(p)), new long[] {1L}));
    }
    // Requests of a partition's size: four in flight fill the budget (each request reserves its
    // whole size until its answer is consumed).
    FetchSettings settings =
        FetchSettings.of(
            FETCH_BUDGET,
            128 * 1024,
            new TransportConf(SluiceConf.empty()).maxFrameSize(),
            ServerTestClient.BACKOFF);
    long blocks = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    try (PartitionReader reader =
        new PartitionReader(APP, 0, sources, settings, clients, allocator, timer)) {
      reader.start();
      FetchedBlock block;
      while ((block =
              reader.take(
                  () -> {
                    if (System.nanoTime() > deadline) {
                      throw new AssertionError(
                          "reading " + PARTITIONS + " partitions took over 2 minutes");
                    }
                  }))
          != null) {
        assertEquals(BLOCK, block.length());
        reader.consumed(block);
        blocks++;
      }
    }
    return blocks;
  }

  /** Runs {@code work} while sampling what the allocator pins; returns the highest sample. */
  private static long peakWhile(PooledByteBufAllocator allocator, Work work) throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong peak = new AtomicLong();
    Thread sampler =
        new Thread(
            () -> {
              while (!done.get()) {
                peak.accumulateAndGet(allocator.pinnedDirectMemory(), Math::max);
                LockSupport.parkNanos(50_000);
              }
            },
            "pinned-memory-sampler");
    sampler.setDaemon(true);
    sampler.start();
    try {
      work.run();
    } finally {
      done.set(true);
      sampler.join();
    }
    return Math.max(peak.get(), allocator.pinnedDirectMemory());
  }

  @FunctionalInterface
  private interface Work {
    void run() throws Exception;
  }
}
