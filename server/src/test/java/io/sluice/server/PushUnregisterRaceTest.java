package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.server.shuffle.RaceNames;
import io.sluice.server.storage.LocalDisk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pushes racing unregistration through a real server: several clients register applications and
 * shuffles, push, read memory and unregister, in random order, over their own connections, while
 * the server flushes. Whatever the interleaving, once every application is gone the server's push
 * pool holds no block and its read budget is free.
 *
 * <p>As in Spark, an unregistered application or shuffle id is not registered again (see
 * ShuffleStateRaceTest).
 */
class PushUnregisterRaceTest {
  private static final int CLIENTS = 4;
  private static final int OPERATIONS = 600;
  private static final int APPS = 2;
  private static final int SHUFFLES = 2;
  private static final int PARTITIONS = 4;

  /** What a request may be refused with while its application or shuffle is being removed. */
  private static final Set<StatusCode> RACING =
      EnumSet.of(StatusCode.UNKNOWN_APPLICATION, StatusCode.UNKNOWN_SHUFFLE);

  @TempDir Path dir;

  @Test
  void aPushRacingAnUnregisterLeavesNoPoolMemoryBehind() throws Exception {
    ShuffleServer server =
        new ShuffleServer(
            TestServers.conf(dir, Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k")));
    RaceNames names = new RaceNames("app", APPS, SHUFFLES);
    Set<String> everRegistered = ConcurrentHashMap.newKeySet();
    AtomicLong accepted = new AtomicLong();
    long seed = Long.getLong("race.seed", System.nanoTime());
    System.out.println("PushUnregisterRaceTest seed " + seed + " (-Drace.seed to repeat)");
    ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
    CyclicBarrier start = new CyclicBarrier(CLIENTS);
    try (ServerTestClient admin = new ServerTestClient(server)) {
      List<Future<?>> workers = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        Random random = new Random(seed + c);
        workers.add(
            threads.submit(
                () -> {
                  try (ServerTestClient client = new ServerTestClient(server)) {
                    start.await();
                    for (int i = 0; i < OPERATIONS; i++) {
                      int appSlot = random.nextInt(APPS);
                      int shuffleSlot = random.nextInt(SHUFFLES);
                      String app = names.app(appSlot);
                      int shuffleId = names.shuffle(appSlot, shuffleSlot);
                      int op = random.nextInt(100);
                      try {
                        if (op < 10) {
                          names.registerApp(
                              appSlot,
                              app,
                              () -> {
                                everRegistered.add(app);
                                client.registerApp(app);
                              });
                        } else if (op < 25) {
                          names.registerShuffle(
                              appSlot,
                              shuffleSlot,
                              app,
                              shuffleId,
                              () -> client.registerShuffle(app, shuffleId, PARTITIONS));
                        } else if (op < 80) {
                          push(client, app, shuffleId, random);
                          accepted.incrementAndGet();
                        } else if (op < 88) {
                          readMemory(client, app, shuffleId, random.nextInt(PARTITIONS));
                        } else if (op < 96) {
                          names.retireShuffle(
                              appSlot,
                              shuffleSlot,
                              shuffleId,
                              () -> client.unregisterShuffle(app, shuffleId));
                        } else {
                          names.retireApp(appSlot, app, () -> client.unregisterApp(app));
                        }
                      } catch (RemoteException e) {
                        assertTrue(RACING.contains(e.status()) || e.isRetriable(), e.toString());
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : workers) {
        f.get(3, TimeUnit.MINUTES);
      }
      assertTrue(accepted.get() > 50, "pushes accepted: " + accepted.get());
      for (String app : everRegistered) {
        admin.unregisterApp(app);
      }
      assertTrue(server.store().applications().isEmpty());
      waitUntil(
          () -> server.pushPool().allocatedBytes() == 0,
          () -> server.pushPool().allocatedBytes() + " bytes of blocks left in the push pool");
      waitUntil(
          () -> server.readBudget().usedBytes() == 0,
          () -> server.readBudget().usedBytes() + " bytes of the read budget held");
      for (LocalDisk disk : server.disks().disks()) {
        assertTrue(disk.isHealthy(), disk + ": " + disk.unhealthyReason());
      }
      // Not asserted: usedBytes() == 0; Netty keeps empty pages and chunks for reuse (see
      // PushBufferPoolTest.anEmptyPoolAdmitsAgain).
      assertTrue(server.pushPool().usedBytes() <= server.pushPool().capacity());
    } finally {
      threads.shutdownNow();
      server.close();
    }
    assertEquals(0, server.pushPool().allocatedBytes());
  }

  /** One push of one to three blocks, some large enough to be flushed at once. */
  private static void push(ServerTestClient client, String app, int shuffleId, Random random)
      throws Exception {
    int n = 1 + random.nextInt(3);
    List<BlockDescriptor> blocks = new ArrayList<>();
    byte[][] data = new byte[n][];
    for (int i = 0; i < n; i++) {
      data[i] = new byte[1 + random.nextInt(random.nextBoolean() ? 2_000 : 80_000)];
      random.nextBytes(data[i]);
      blocks.add(
          new BlockDescriptor(
              random.nextInt(PARTITIONS),
              1,
              i,
              data[i].length,
              data[i].length,
              Crc32c.of(data[i])));
    }
    client.pushRaw(app, shuffleId, List.of(), blocks, data);
  }

  private static void readMemory(ServerTestClient client, String app, int shuffleId, int partition)
      throws Exception {
    FetchMemoryDataResponse page =
        client.send(
            new FetchMemoryDataRequest(
                TransportClient.nextRequestId(),
                app,
                shuffleId,
                partition,
                FetchMemoryDataRequest.FROM_START,
                256 * 1024,
                new long[0]),
            FetchMemoryDataResponse.class);
    ServerTestClient.release(page);
  }

  private static void waitUntil(
      java.util.function.BooleanSupplier condition, java.util.function.Supplier<String> what)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what.get());
      }
      Thread.sleep(10);
    }
  }
}
