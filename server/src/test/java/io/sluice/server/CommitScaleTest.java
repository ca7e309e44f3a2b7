package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit bookkeeping of a 10,000-map x 10,000-partition shuffle, all on one server, driven over
 * the wire by a protocol client: it takes no more heap than bin/start-server.sh gives it per pair
 * ({@link ServerJvmOptions#HEAP_BYTES_PER_100_COMMIT_PAIRS}, for {@code heap.commit.pairs}), and
 * every count reads back.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CommitScaleTest {
  private static final int MAPS = 10_000;
  private static final int PARTITIONS = 10_000;
  private static final int IN_FLIGHT = 16;

  @TempDir Path dir;

  private static int countOf(int map, int partition) {
    // A few counts beyond what a byte holds, as an attempt writing thousands of blocks has.
    return (map * 31 + partition) % 1_000 == 0 ? 300 : 1 + (map + partition) % 4;
  }

  @Test
  void tenThousandMapsByTenThousandPartitionsFitTheHeapSizedForThem() throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp("app");
      client.registerShuffle("app", 0, PARTITIONS);
      long before = heapAfterGc(memory);

      int[] partitionIds = new int[PARTITIONS];
      for (int p = 0; p < PARTITIONS; p++) {
        partitionIds[p] = p;
      }
      ArrayDeque<CompletableFuture<StatusResponse>> inFlight = new ArrayDeque<>();
      for (int m = 0; m < MAPS; m++) {
        int[] counts = new int[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
          counts[p] = countOf(m, p);
        }
        inFlight.add(
            client
                .client()
                .request(
                    new CommitMapOutputRequest(
                        TransportClient.nextRequestId(),
                        "app",
                        0,
                        m,
                        attemptOf(m),
                        partitionIds,
                        counts),
                    StatusResponse.class));
        if (inFlight.size() == IN_FLIGHT) {
          ServerTestClient.await(inFlight.poll());
        }
      }
      while (!inFlight.isEmpty()) {
        ServerTestClient.await(inFlight.poll());
      }

      long grown = heapAfterGc(memory) - before;
      long accounted = server.store().shuffle("app", 0).commitHeapBytes();
      long pairs = (long) MAPS * PARTITIONS;
      System.out.printf(
          "Commit bookkeeping of %,d (map, partition) pairs: heap grew %,d bytes "
              + "(%.2f per pair), the records account for %,d (%.2f per pair)%n",
          pairs, grown, grown / (double) pairs, accounted, accounted / (double) pairs);
      assertTrue(
          grown * 100 <= pairs * ServerJvmOptions.HEAP_BYTES_PER_100_COMMIT_PAIRS,
          "heap grew by " + grown + " bytes, more than bin/start-server.sh sizes the heap for");
      assertTrue(accounted < 2 * pairs, accounted + " bytes accounted");

      long[] attempts = new long[MAPS];
      for (int m = 0; m < MAPS; m++) {
        attempts[m] = attemptOf(m);
      }
      for (int p : new int[] {0, 1, 4_999, PARTITIONS - 1}) {
        int[] expected = new int[MAPS];
        for (int m = 0; m < MAPS; m++) {
          expected[m] = countOf(m, p);
        }
        assertArrayEquals(
            expected, client.committedCounts("app", 0, p, attempts), "partition " + p);
      }
      client.unregisterApp("app");
    }
  }

  private static long attemptOf(int map) {
    return 5_000_000_000L + map * 3L;
  }

  static long heapAfterGc(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc(); // a full collection with G1, done when it returns
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
