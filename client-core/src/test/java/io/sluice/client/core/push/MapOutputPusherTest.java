package io.sluice.client.core.push;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.client.core.TransferCounters;
import io.sluice.client.core.read.FakeShuffleServer;
import io.sluice.client.core.read.FakeShuffleServer.Block;
import io.sluice.client.core.read.FetchSettings;
import io.sluice.client.core.read.FetchedBlock;
import io.sluice.client.core.read.PartitionReader;
import io.sluice.client.core.read.PartitionReader.PartitionSource;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.shuffle.Backoff;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.FreezableRelay;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import io.sluice.fixtures.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The push client against fake servers on real sockets, through the real transport client:
 * numbering and batching, the memory bound, retries, relocation and commit.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MapOutputPusherTest {
  private static final String APP = "app-push";
  private static final int SHUFFLE = 7;
  private static final long ATTEMPT = 9_000_000_001L;
  private static final Backoff QUICK = new Backoff(Duration.ofMillis(1), Duration.ofMillis(5), 3);

  private static TransportClientFactory clients;
  private static ScheduledExecutorService timer;
  private final List<FakeShuffleServer> servers = new ArrayList<>();
  private final List<MapOutputPusher> pushers = new ArrayList<>();
  private final PushRetries pushRetries = new PushRetries();

  @BeforeAll
  static void startClient() {
    // Held pushes must not time out: a timed-out push is sent again.
    SluiceConf conf =
        SluiceConf.empty()
            .with(TransportOptions.REQUEST_TIMEOUT, "60s")
            .with(TransportOptions.CONNECT_TIMEOUT, "5s");
    clients =
        new TransportContext(new TransportConf(conf), "pusher-test", PooledByteBufAllocator.DEFAULT)
            .createClientFactory();
    timer = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterAll
  static void stopClient() {
    clients.close();
    timer.shutdownNow();
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (FakeShuffleServer s : servers) {
      s.releaseHeldPushes();
    }
    for (MapOutputPusher p : pushers) {
      p.abort();
      Await.until(() -> p.bufferedBytes() == 0, "the aborted pusher to let go of its blocks");
    }
    servers.forEach(FakeShuffleServer::close);
  }

  // ---- numbering and batching ----

  @Test
  void numbersEachPartitionsBlocksFromZeroAndComputesTheirCrc() throws Exception {
    FakeShuffleServer s = newServer();
    RecordingLocator locator = new RecordingLocator().at(0, 0, s).at(1, 0, s).at(2, 0, s);
    MapOutputPusher pusher = pusher(settings(4_000, 1 << 20, QUICK), locator, 3);
    Map<Integer, List<byte[]>> added = new HashMap<>();
    int[] order = {0, 1, 0, 0, 1, 0, 0, 1};
    for (int p : order) {
      added.computeIfAbsent(p, k -> new ArrayList<>()).add(add(pusher, p, 700));
    }
    pusher.finish();

    assertEquals(5, pusher.blockCount(0));
    assertEquals(3, pusher.blockCount(1));
    assertEquals(0, pusher.blockCount(2));
    for (int p : new int[] {0, 1}) {
      List<Block> stored = sortedBySequence(s.memory(p));
      assertEquals(added.get(p).size(), stored.size());
      for (int i = 0; i < stored.size(); i++) {
        Block b = stored.get(i);
        assertEquals(i, b.sequence());
        assertEquals(ATTEMPT, b.taskAttemptId());
        assertArrayEquals(added.get(p).get(i), b.bytes());
        assertEquals(Crc32c.of(added.get(p).get(i)), b.crc(), "CRC32C of the bytes as sent");
      }
    }
    for (PushDataRequest push : s.received(PushDataRequest.class)) {
      assertEquals(APP, push.appId());
      assertEquals(SHUFFLE, push.shuffleId());
      for (BlockDescriptor d : push.blocks()) {
        assertEquals(3 * d.length(), d.uncompressedLength());
      }
    }
    assertTrue(s.memory(2).isEmpty());
  }

  @Test
  void anAttemptSaysWhetherItWroteOnlyToTheFirstLocations() throws Exception {
    // Partition 1 was moved before this attempt began (another task of the executor learnt its
    // epoch-2 location): an attempt that writes to it must send its readers to the driver.
    FakeShuffleServer s = newServer();
    RecordingLocator locator = new RecordingLocator().at(0, 0, s).at(1, 2, s).at(2, 0, s);
    MapOutputPusher first = pusher(settings(4_000, 1 << 20, QUICK), locator, 3);
    add(first, 0, 100);
    add(first, 2, 100);
    first.finish();
    MapOutputPusher moved = pusher(settings(4_000, 1 << 20, QUICK), locator, 3);
    add(moved, 0, 100);
    add(moved, 1, 100);
    moved.finish();

    assertTrue(first.wroteToFirstLocationsOnly());
    assertFalse(moved.wroteToFirstLocationsOnly());
  }

  @Test
  void packsEachPrimarysBlocksIntoBatchesOfAboutTheBatchSize() throws Exception {
    FakeShuffleServer s1 = newServer();
    FakeShuffleServer s2 = newServer();
    // Partitions 0 and 2 on s1, 1 on s2.
    RecordingLocator locator = new RecordingLocator().at(0, 0, s1).at(1, 0, s2).at(2, 0, s1);
    MapOutputPusher pusher = pusher(settings(10_000, 1 << 20, QUICK), locator, 3);
    for (int i = 0; i < 25; i++) {
      add(pusher, 0, 600);
      add(pusher, 1, 1000);
      add(pusher, 2, 400);
    }
    pusher.finish();

    // s1 takes 1000 bytes per round: batches of 10 000 bytes, then the rest at finish.
    assertEquals(List.of(10_000L, 10_000L, 5_000L), bodySizes(s1));
    assertEquals(List.of(10_000L, 10_000L, 5_000L), bodySizes(s2));
    for (PushDataRequest push : s1.received(PushDataRequest.class)) {
      assertTrue(push.blocks().stream().allMatch(b -> b.partitionId() != 1), "only s1's blocks");
    }
    assertEquals(50, s1.memory(0).size() + s1.memory(2).size());
    assertEquals(25, s2.memory(1).size());
  }

  @Test
  void aBatchMayPassTheBatchSizeByOneBlockOnly() throws Exception {
    FakeShuffleServer s = newServer();
    MapOutputPusher pusher =
        pusher(settings(10_000, 1 << 20, QUICK), new RecordingLocator().at(0, 0, s), 1);
    for (int i = 0; i < 40; i++) {
      add(pusher, 0, 1 + ThreadLocalRandom.current().nextInt(3_000));
    }
    pusher.finish();

    int shortBatches = 0;
    for (PushDataRequest push : s.received(PushDataRequest.class)) {
      List<BlockDescriptor> blocks = push.blocks();
      long total = BlockDescriptor.totalLength(blocks);
      long withoutLast = total - blocks.get(blocks.size() - 1).length();
      assertTrue(withoutLast < 10_000, "a batch goes out as soon as it reaches the batch size");
      if (total < 10_000) {
        shortBatches++;
      }
    }
    assertTrue(
        shortBatches <= 1, "only the batch left at finish() goes out short: " + shortBatches);
    assertEquals(40, s.memory(0).size());
  }

  // ---- the memory bound ----

  @Test
  void neverHoldsMoreThanMaxBytesBufferedHoweverManyPrimaries() throws Exception {
    int primaries = 8;
    int partitions = 2 * primaries;
    long maxBuffered = 48_000;
    RecordingLocator locator = new RecordingLocator();
    List<FakeShuffleServer> held = new ArrayList<>();
    for (int i = 0; i < primaries; i++) {
      FakeShuffleServer s = newServer().holdPushes(true);
      held.add(s);
      locator.at(i, 0, s).at(i + primaries, 0, s);
    }
    // Eight batches of up to 16 KB would hold 128 KB; the attempt may hold 48 KB.
    MapOutputPusher pusher = pusher(settings(16_000, maxBuffered, QUICK), locator, partitions);
    int blocks = 400;
    AtomicLong maxSeen = new AtomicLong();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread producer =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < blocks; i++) {
                  add(pusher, i % partitions, 1_000);
                  maxSeen.accumulateAndGet(pusher.bufferedBytes(), Math::max);
                }
                pusher.finish();
              } catch (Throwable t) {
                failed.set(t);
              }
            },
            "producer");
    producer.start();

    int rounds = 0;
    while (producer.isAlive()) {
      // Wait until the producer waits for acknowledgements of pushes that arrived (or is done),
      // then acknowledge them. (It waits in slices, so that a killed task stops waiting:
      // TIMED_WAITING.)
      Await.until(
          () ->
              !producer.isAlive()
                  || (producer.getState() == Thread.State.TIMED_WAITING
                      && held.stream().anyMatch(s -> s.heldPushes() > 0)),
          "the producer to wait");
      long heldNow = 0;
      for (FakeShuffleServer s : held) {
        heldNow += s.heldBytes();
      }
      assertTrue(heldNow <= maxBuffered, heldNow + " bytes pushed and unacknowledged");
      assertTrue(pusher.bufferedBytes() <= maxBuffered);
      int released = 0;
      for (FakeShuffleServer s : held) {
        released += s.releaseHeldPushes();
      }
      if (released > 0) {
        rounds++;
      }
    }
    producer.join();

    assertNull(failed.get(), () -> "producer failed: " + failed.get());
    assertTrue(maxSeen.get() <= maxBuffered, "held " + maxSeen.get() + " bytes at most");
    assertTrue(
        rounds >= 400_000 / maxBuffered,
        "the attempt had to wait for acknowledgements: " + rounds + " rounds");
    int stored = 0;
    for (int p = 0; p < partitions; p++) {
      assertEquals(blocks / partitions, pusher.blockCount(p));
      stored += held.get(p % primaries).memory(p).size();
    }
    assertEquals(blocks, stored);
    assertEquals(0, pusher.bufferedBytes());
  }

  // ---- retries ----

  @Test
  void noBufferIsRetriedWithBackOff() throws Exception {
    FakeShuffleServer s = newServer();
    s.failNext(PushDataRequest.class, StatusCode.NO_BUFFER, 3);
    RecordingLocator locator = new RecordingLocator().at(0, 0, s);
    Backoff backoff = new Backoff(Duration.ofMillis(40), Duration.ofSeconds(1), 5);
    MapOutputPusher pusher = pusher(settings(1_000, 1 << 20, backoff), locator, 1);
    byte[] bytes = add(pusher, 0, 500);
    pusher.finish();

    List<Long> arrivals = s.pushArrivals();
    assertEquals(4, arrivals.size());
    for (int retry = 0; retry < 3; retry++) {
      long gapMillis = (arrivals.get(retry + 1) - arrivals.get(retry)) / 1_000_000;
      assertTrue(
          gapMillis >= backoff.delayMillis(retry),
          "retry " + retry + " came " + gapMillis + " ms after the refusal");
    }
    assertEquals(1, s.memory(0).size());
    assertArrayEquals(bytes, s.memory(0).get(0).bytes());
    assertTrue(locator.calls.isEmpty(), "a full server is not a failed location");
    assertEquals(3, pushRetries.count, "each push sent again is counted");
  }

  @Test
  void noBufferBeyondTheRetriesFailsTheAttemptWithoutRelocating() throws Exception {
    FakeShuffleServer s = newServer();
    s.failNext(PushDataRequest.class, StatusCode.NO_BUFFER, 10);
    RecordingLocator locator = new RecordingLocator().at(0, 0, s);
    MapOutputPusher pusher =
        pusher(
            settings(1_000, 1 << 20, new Backoff(Duration.ofMillis(1), Duration.ofMillis(1), 2)),
            locator,
            1);
    add(pusher, 0, 500);

    IOException e = assertThrows(IOException.class, pusher::finish);
    assertTrue(e.getMessage().contains("NO_BUFFER"), e.getMessage());
    assertEquals(3, s.pushArrivals().size());
    assertTrue(locator.calls.isEmpty());
    assertEquals(0, pusher.bufferedBytes());
  }

  @Test
  void anAbortedAttemptStopsRetryingAPushTheServerRefused() throws Exception {
    FakeShuffleServer s = newServer();
    int refusals = 100;
    s.failNext(PushDataRequest.class, StatusCode.NO_BUFFER, refusals);
    RecordingLocator locator = new RecordingLocator().at(0, 0, s);
    // Without the abort the batch would be retried for 100 x 100 ms.
    MapOutputPusher pusher =
        pusher(
            settings(
                1_000, 1 << 20, new Backoff(Duration.ofMillis(100), Duration.ofMillis(100), 100)),
            locator,
            1);
    add(pusher, 0, 1_500);
    Await.until(() -> s.pushArrivals().size() >= 2, "the refused push to be retried");

    pusher.abort();
    int arrivedBefore = s.pushArrivals().size();
    Await.until(() -> pusher.bufferedBytes() == 0, "the aborted attempt to release its batch");

    assertTrue(
        s.pushArrivals().size() <= arrivedBefore + 1,
        "pushes after the abort: " + (s.pushArrivals().size() - arrivedBefore));
  }

  @Test
  void aPushRefusedBeyondItsRetriesGoesWhereItsPartitionMovedMeanwhile() throws Exception {
    FakeShuffleServer full = newServer();
    FakeShuffleServer other = newServer();
    full.failNext(PushDataRequest.class, StatusCode.NO_BUFFER, 100);
    RecordingLocator locator = new RecordingLocator().at(0, 0, full);
    MapOutputPusher pusher =
        pusher(
            settings(1_000, 1 << 20, new Backoff(Duration.ofMillis(1), Duration.ofMillis(1), 2)),
            locator,
            1);
    byte[] block = add(pusher, 0, 500);
    // As a move away from a server found slow does: the location changes under the batch.
    locator.at(0, 1, other);
    pusher.finish();

    assertEquals(3, full.pushArrivals().size(), "the first send and its two retries");
    assertTrue(full.memory(0).isEmpty());
    assertEquals(1, other.memory(0).size());
    assertArrayEquals(block, other.memory(0).get(0).bytes());
    assertEquals(0, pusher.bufferedBytes());
    assertTrue(locator.calls.isEmpty(), "the driver had moved it already");
  }

  // ---- relocation ----

  @Test
  void aRefusedConnectionRelocatesTheBatchOnceAndPushesTheSameBlocksThere() throws Exception {
    ServerAddress dead = deadAddress();
    FakeShuffleServer moved = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(dead)))
            .at(1, new PartitionLocation(0, List.of(dead)))
            .at(2, new PartitionLocation(3, List.of(dead)))
            .movesTo(0, 1, moved)
            .movesTo(1, 1, moved)
            .movesTo(2, 4, moved);
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 3);
    Map<Integer, List<byte[]>> added = new HashMap<>();
    for (int i = 0; i < 9; i++) {
      added.computeIfAbsent(i % 3, k -> new ArrayList<>()).add(add(pusher, i % 3, 300));
    }
    pusher.finish();
    pusher.commit(5);

    assertFalse(pusher.wroteToFirstLocationsOnly(), "its blocks went to moved locations");
    assertEquals(1, locator.calls.size());
    Relocation call = locator.calls.get(0);
    assertEquals(Map.of(0, 0, 1, 0, 2, 3), call.epochs());
    assertEquals(dead.serverId(), call.failedServerId());
    assertTrue(call.reason().contains("cannot connect"), call.reason());
    for (int p = 0; p < 3; p++) {
      List<Block> stored = sortedBySequence(moved.memory(p));
      assertEquals(3, stored.size());
      for (int i = 0; i < 3; i++) {
        assertEquals(i, stored.get(i).sequence());
        assertArrayEquals(added.get(p).get(i), stored.get(i).bytes());
        assertEquals(Crc32c.of(added.get(p).get(i)), stored.get(i).crc());
      }
      assertEquals(3, moved.committedCount(p, ATTEMPT));
    }
  }

  @Test
  void eachFailedBatchIsRelocatedOnceWithItsOwnPartitions() throws Exception {
    ServerAddress dead1 = deadAddress();
    ServerAddress dead2 = deadAddress();
    FakeShuffleServer moved = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(2, List.of(dead1)))
            .at(1, new PartitionLocation(0, List.of(dead2)))
            .movesTo(0, 3, moved)
            .movesTo(1, 1, moved);
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 2);
    add(pusher, 0, 100);
    add(pusher, 1, 100);
    add(pusher, 0, 100);
    pusher.finish();

    Map<String, Map<Integer, Integer>> byServer = new HashMap<>();
    for (Relocation call : locator.calls) {
      assertNull(byServer.put(call.failedServerId(), call.epochs()), "one call per batch");
    }
    assertEquals(Map.of(dead1.serverId(), Map.of(0, 2), dead2.serverId(), Map.of(1, 0)), byServer);
    assertEquals(2, moved.memory(0).size());
    assertEquals(1, moved.memory(1).size());
  }

  @Test
  void replicaUnavailableRelocatesWithoutBlamingThePrimary() throws Exception {
    FakeShuffleServer primary = newServer();
    FakeShuffleServer lostReplica = newServer();
    FakeShuffleServer newReplica = newServer();
    RecordingLocator locator = replicaLostOnce(primary, lostReplica, newReplica);
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 1);
    byte[] b0 = add(pusher, 0, 300);
    byte[] b1 = add(pusher, 0, 300);
    pusher.finish();
    pusher.commit(0);

    assertEquals(1, locator.calls.size());
    assertNull(locator.calls.get(0).failedServerId(), "the replica is named only in the message");
    assertEquals(Map.of(0, 0), locator.calls.get(0).epochs());
    List<PushDataRequest> pushes = primary.received(PushDataRequest.class);
    assertEquals(2, pushes.size());
    assertEquals(
        List.of(new ReplicaChain(0, List.of(lostReplica.address()))),
        pushes.get(0).replicaChains());
    assertEquals(
        List.of(new ReplicaChain(0, List.of(newReplica.address()))), pushes.get(1).replicaChains());
    assertEquals(pushes.get(0).blocks(), pushes.get(1).blocks(), "the same blocks again");
    List<Block> stored = sortedBySequence(primary.memory(0));
    assertEquals(2, stored.size());
    assertArrayEquals(b0, stored.get(0).bytes());
    assertArrayEquals(b1, stored.get(1).bytes());
    // Only the location that took the blocks is committed: the new chain, not the old one.
    assertEquals(2, primary.committedCount(0, ATTEMPT));
    assertEquals(2, newReplica.committedCount(0, ATTEMPT));
    assertNull(lostReplica.committedCount(0, ATTEMPT));
  }

  @Test
  void replicaUnavailableNamesTheReplicaThisWriterSuspects() throws Exception {
    FakeShuffleServer primary = newServer();
    FakeShuffleServer lostReplica = newServer();
    FakeShuffleServer newReplica = newServer();
    RecordingLocator locator = replicaLostOnce(primary, lostReplica, newReplica);
    // This JVM's own view of the replica, as its liveness probes would have it.
    Connections suspectingTheReplica = suspecting(lostReplica);
    MapOutputPusher pusher =
        pusher(suspectingTheReplica, settings(1 << 20, 1 << 20, QUICK), locator, 1);
    add(pusher, 0, 300);
    pusher.finish();
    pusher.commit(0);

    assertEquals(1, locator.calls.size());
    assertEquals(lostReplica.address().serverId(), locator.calls.get(0).failedServerId());
    assertEquals(1, newReplica.committedCount(0, ATTEMPT));
  }

  @Test
  void aPushCarriesOneChainSoThatReplicaUnavailableNamesThatChainsReplica() throws Exception {
    FakeShuffleServer primary = newServer();
    FakeShuffleServer replica1 = newServer();
    FakeShuffleServer replica2 = newServer();
    FakeShuffleServer newReplica = newServer();
    primary.failNext(PushDataRequest.class, StatusCode.REPLICA_UNAVAILABLE, 1);
    RecordingLocator locator = new RecordingLocator();
    FakeShuffleServer[] replicas = {replica1, replica2};
    for (int p = 0; p < 2; p++) {
      locator
          .at(p, new PartitionLocation(0, List.of(primary.address(), replicas[p].address())))
          .movesTo(p, new PartitionLocation(1, List.of(primary.address(), newReplica.address())));
    }
    Connections suspectingBoth = suspecting(replica1, replica2);
    MapOutputPusher pusher = pusher(suspectingBoth, settings(1 << 20, 1 << 20, QUICK), locator, 2);
    add(pusher, 0, 300);
    add(pusher, 1, 300);
    pusher.finish();
    pusher.commit(0);

    assertEquals(
        3,
        primary.received(PushDataRequest.class).size(),
        "a push per chain, and the refused one again to its new chain");
    assertEquals(1, locator.calls.size());
    Relocation move = locator.calls.get(0);
    assertEquals(1, move.epochs().size(), "only the refused chain's partition moves");
    int moved = move.epochs().keySet().iterator().next();
    assertEquals(replicas[moved].address().serverId(), move.failedServerId());
  }

  /**
   * With replicas, a push to a primary that froze fails once the primary's liveness probe has gone
   * unanswered for a quarter of {@code transport.liveness.timeout}, before the verdict, and the
   * blocks go to the new location.
   */
  @Test
  void withReplicasAPushLeavesAFrozenPrimaryBeforeItIsGivenUp() throws Exception {
    Relocation relocation = pushToAFrozenPrimary(true);
    assertTrue(relocation.reason().contains("has not answered a probe"), relocation.reason());
  }

  /** With one copy nothing else holds the primary's blocks: the push waits for the verdict. */
  @Test
  void withOneCopyAPushWaitsForAFrozenPrimarysVerdict() throws Exception {
    Relocation relocation = pushToAFrozenPrimary(false);
    assertTrue(
        relocation.reason().contains("answered neither requests nor a probe"), relocation.reason());
  }

  private Relocation pushToAFrozenPrimary(boolean withReplica) throws Exception {
    // Probed after 4 s of silence, in doubt 2 s later, given up at 8 s: apart enough for a loaded
    // machine. One connection, made before the freeze: a new one would wait for its handshake.
    SluiceConf conf =
        SluiceConf.empty()
            .with(TransportOptions.CONNECTIONS_PER_PEER, "1")
            .with(TransportOptions.REQUEST_TIMEOUT, "60s")
            .with(TransportOptions.CONNECT_TIMEOUT, "5s")
            .with(TransportOptions.LIVENESS_TIMEOUT, "8s");
    FakeShuffleServer frozen = newServer();
    FakeShuffleServer replica = newServer();
    FakeShuffleServer moved = newServer();
    try (TransportClientFactory watched =
            new TransportContext(
                    new TransportConf(conf), "pusher-liveness-test", PooledByteBufAllocator.DEFAULT)
                .createClientFactory();
        FreezableRelay relay = new FreezableRelay("127.0.0.1", frozen.port())) {
      ServerAddress behindRelay = new ServerAddress("frozen", "127.0.0.1", relay.port());
      watched.getClientAsync("127.0.0.1", relay.port()).get(30, TimeUnit.SECONDS);
      relay.freeze();
      List<ServerAddress> old =
          withReplica ? List.of(behindRelay, replica.address()) : List.of(behindRelay);
      List<ServerAddress> next =
          withReplica ? List.of(moved.address(), replica.address()) : List.of(moved.address());
      RecordingLocator locator =
          new RecordingLocator()
              .at(0, new PartitionLocation(0, old))
              .movesTo(0, new PartitionLocation(1, next));
      MapOutputPusher pusher = pusher(watched, settings(1 << 20, 1 << 20, QUICK), locator, 1);
      byte[] bytes = add(pusher, 0, 300);
      pusher.finish();
      pusher.commit(0);

      assertEquals(1, locator.calls.size());
      Relocation relocation = locator.calls.get(0);
      assertEquals("frozen", relocation.failedServerId());
      assertArrayEquals(bytes, moved.memory(0).get(0).bytes());
      assertEquals(1, moved.committedCount(0, ATTEMPT));
      return relocation;
    }
  }

  @Test
  void aFailedRelocationFailsTheAttemptAtItsNextCall() throws Exception {
    ServerAddress dead = deadAddress();
    MapOutputPusher pusher =
        pusher(
            settings(100, 1 << 20, QUICK),
            new FixedLocations(List.of(new PartitionLocation(0, List.of(dead)))),
            1);
    add(pusher, 0, 100); // a full batch: pushed at once, refused, not relocated
    Await.until(() -> pusher.bufferedBytes() == 0, "the failed push to be released");

    ByteBuf next = PooledByteBufAllocator.DEFAULT.directBuffer(10).writeZero(10);
    IOException e = assertThrows(IOException.class, () -> pusher.add(0, next, 30));
    assertTrue(e.getMessage().contains("no new location could be had"), e.getMessage());
    assertTrue(e.getMessage().contains(dead.serverId()), e.getMessage());
    assertEquals(0, next.refCnt(), "a refused block is released");
    assertThrows(IOException.class, pusher::finish);
  }

  @Test
  void relocationsAreBounded() throws Exception {
    ServerAddress dead1 = deadAddress();
    ServerAddress dead2 = deadAddress();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(dead1)))
            .movesTo(0, new PartitionLocation(1, List.of(dead2)));
    MapOutputPusher pusher = pusher(new PushSettings(1 << 20, 1 << 20, QUICK, 1), locator, 1);
    add(pusher, 0, 100);

    assertThrows(IOException.class, pusher::finish);
    assertEquals(1, locator.calls.size(), "one relocation allowed, then the attempt fails");
  }

  @Test
  void partitionsOfAServerFoundSlowMoveWhileWhatItTookStaysAndIsCommittedThere() throws Exception {
    FakeShuffleServer fast = newServer();
    FakeShuffleServer slow = newServer().holdPushes(true);
    FakeShuffleServer target = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, 0, fast)
            .at(1, 0, slow)
            .at(2, 0, slow)
            .movesTo(1, 1, target)
            .movesTo(2, 1, target);
    AtomicLong clock = new AtomicLong();
    PushPace pace = new PushPace(4, Duration.ofMillis(300), 1000, clock::get);
    MapOutputPusher pusher = pacedPusher(pace, locator, 3);
    byte[] held = add(pusher, 1, 1500);
    Await.until(() -> slow.heldPushes() == 1, "the slow server to hold the first push");
    clock.addAndGet(Duration.ofSeconds(2).toNanos());
    add(pusher, 0, 1500); // acknowledged at once: the slow server has stalled 2 s

    Await.until(() -> !locator.calls.isEmpty(), "the partitions on the slow server to move");
    Relocation move = locator.calls.get(0);
    assertEquals(Map.of(1, 0, 2, 0), move.epochs(), "both partitions located on it, unwritten too");
    assertEquals(slow.address().serverId(), move.failedServerId());
    assertTrue(move.reason().startsWith("slow: "), move.reason());
    byte[] later = add(pusher, 1, 1500);
    assertEquals(1, slow.heldPushes(), "later blocks go to the new location");
    slow.releaseHeldPushes();
    pusher.finishAndCommit(7);

    assertEquals(1, locator.calls.size(), "moved once");
    for (FakeShuffleServer s : List.of(fast, slow, target)) {
      assertEquals(0, pace.outstanding(List.of(s.address().serverId())), "every push ended");
    }
    assertEquals(1, slow.memory(1).size());
    assertArrayEquals(held, slow.memory(1).get(0).bytes());
    assertEquals(1, target.memory(1).size());
    assertArrayEquals(later, target.memory(1).get(0).bytes());
    assertEquals(Map.of(1, 2), commits(slow));
    assertEquals(Map.of(1, 2), commits(target));
    assertFalse(pusher.wroteToFirstLocationsOnly());
  }

  @Test
  void aSlowPairOfServersBesideNoFastOneMovesItsPartitionsNamingNeither() throws Exception {
    FakeShuffleServer a = newServer();
    FakeShuffleServer b = newServer();
    FakeShuffleServer c = newServer().holdPushes(true);
    FakeShuffleServer d = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(a.address(), b.address())))
            .at(1, new PartitionLocation(0, List.of(c.address(), d.address())))
            .at(2, new PartitionLocation(0, List.of(d.address(), c.address())))
            .movesTo(1, new PartitionLocation(1, List.of(a.address(), b.address())))
            .movesTo(2, new PartitionLocation(1, List.of(b.address(), a.address())));
    AtomicLong clock = new AtomicLong();
    PushPace pace = new PushPace(4, Duration.ofMillis(300), 1000, clock::get);
    MapOutputPusher pusher = pacedPusher(pace, locator, 3);
    add(pusher, 1, 1500);
    Await.until(() -> c.heldPushes() == 1, "c to hold the push");
    clock.addAndGet(Duration.ofSeconds(2).toNanos());
    add(pusher, 0, 1500);

    Await.until(() -> !locator.calls.isEmpty(), "the pair's partitions to move");
    Relocation move = locator.calls.get(0);
    assertEquals(Map.of(1, 0, 2, 0), move.epochs(), "the partitions on both servers of the pair");
    assertEquals("", move.failedServerId(), "which of the two is slow is not known");
    c.releaseHeldPushes();
    pusher.finishAndCommit(0);
  }

  // ---- commit ----

  @Test
  void commitTellsEveryServerOfEveryLocationThatTookBlocksTheCounts() throws Exception {
    FakeShuffleServer s1 = newServer();
    FakeShuffleServer s2 = newServer();
    FakeShuffleServer s3 = newServer();
    FakeShuffleServer s4 = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(s1.address(), s2.address())))
            .at(1, new PartitionLocation(0, List.of(s2.address())))
            .movesTo(0, new PartitionLocation(1, List.of(s3.address(), s4.address())));
    // One block per batch, so that each push goes out as it is added.
    MapOutputPusher pusher = pusher(settings(100, 1 << 20, QUICK), locator, 3);
    byte[] first = add(pusher, 0, 100);
    add(pusher, 1, 100);
    Await.until(() -> pusher.bufferedBytes() == 0, "the first pushes to be acknowledged");
    s1.failNext(PushDataRequest.class, StatusCode.REPLICA_UNAVAILABLE, 1);
    byte[] second = add(pusher, 0, 100); // refused by s1: moves partition 0 to s3 -> s4
    add(pusher, 1, 100);
    pusher.finish();
    pusher.commit(12);

    assertEquals(Map.of(0, 2), commits(s1));
    assertEquals(Map.of(0, 2, 1, 2), commits(s2));
    assertEquals(Map.of(0, 2), commits(s3));
    assertEquals(Map.of(0, 2), commits(s4));
    for (FakeShuffleServer s : List.of(s1, s2, s3, s4)) {
      List<CommitMapOutputRequest> received = s.received(CommitMapOutputRequest.class);
      assertEquals(1, received.size());
      assertEquals(12, received.get(0).mapIndex());
      assertEquals(ATTEMPT, received.get(0).taskAttemptId());
      assertEquals(APP, received.get(0).appId());
      assertEquals(SHUFFLE, received.get(0).shuffleId());
    }

    // A reader of both locations finds both blocks of partition 0, each once.
    List<FetchedBlock> taken = new ArrayList<>();
    try (PartitionReader reader =
        new PartitionReader(
            APP,
            SHUFFLE,
            List.of(
                new PartitionSource(
                    0,
                    List.of(
                        new PartitionLocation(0, List.of(s1.address(), s2.address())),
                        new PartitionLocation(1, List.of(s3.address(), s4.address()))),
                    new long[] {ATTEMPT})),
            new FetchSettings(1 << 20, 1 << 16, QUICK),
            clients,
            PooledByteBufAllocator.DEFAULT,
            timer)) {
      reader.start();
      FetchedBlock b;
      while ((b = reader.take(() -> {})) != null) {
        taken.add(b);
        byte[] expected = b.sequence() == 0 ? first : second;
        assertArrayEquals(expected, ByteBufUtil.getBytes(b.data()));
        reader.consumed(b);
      }
    }
    assertEquals(List.of(0, 1), taken.stream().map(FetchedBlock::sequence).sorted().toList());
  }

  @Test
  void finishAndCommitSendsTheCommitsBehindTheLastPushesWithoutWaitingForThem() throws Exception {
    FakeShuffleServer s1 = newServer();
    FakeShuffleServer s2 = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(s1.address(), s2.address())))
            .at(1, new PartitionLocation(0, List.of(s2.address())));
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 2);
    add(pusher, 0, 100);
    add(pusher, 0, 100);
    add(pusher, 1, 100);
    s1.holdPushes(true);
    s2.holdPushes(true);

    CompletableFuture<Void> done =
        CompletableFuture.runAsync(
            () -> {
              try {
                pusher.finishAndCommit(3);
              } catch (IOException | InterruptedException e) {
                throw new CompletionException(e);
              }
            });
    // On a new connection a commit may overtake the push queued before it (the order does not
    // matter to a server): both must arrive while no push was answered.
    Await.until(
        () ->
            s1.received(CommitMapOutputRequest.class).size() == 1
                && s2.received(CommitMapOutputRequest.class).size() == 1
                && s1.heldPushes() + s2.heldPushes() == 2,
        "the commits and pushes to arrive while the pushes wait for their answers");
    assertFalse(done.isDone(), "the attempt waits for its pushes' answers");
    s1.releaseHeldPushes();
    s2.releaseHeldPushes();
    done.get(30, TimeUnit.SECONDS);

    assertEquals(Map.of(0, 2), commits(s1));
    assertEquals(Map.of(0, 2, 1, 1), commits(s2));
    assertTrue(pusher.wroteToFirstLocationsOnly());
  }

  @Test
  void finishAndCommitCommitsAgainWhereAPushMoved() throws Exception {
    // The first location is alive: it refuses the push (draining) but takes the early commit, so
    // only the check that every block was acknowledged where it was first sent makes the attempt
    // commit to where partition 0's blocks went.
    FakeShuffleServer draining = newServer();
    FakeShuffleServer moved = newServer();
    FakeShuffleServer s = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, 0, draining)
            .at(1, new PartitionLocation(0, List.of(s.address())))
            .movesTo(0, 1, moved);
    draining.failNext(PushDataRequest.class, StatusCode.SHUTTING_DOWN, 1);
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 2);
    add(pusher, 0, 100);
    add(pusher, 0, 100);
    add(pusher, 1, 100);

    pusher.finishAndCommit(4);

    assertEquals(1, locator.calls.size());
    assertEquals(Map.of(0, 2), commits(moved));
    assertEquals(1, moved.received(CommitMapOutputRequest.class).size());
    assertEquals(2, s.received(CommitMapOutputRequest.class).size(), "committed early, then again");
    assertEquals(1, s.committedCount(1, ATTEMPT));
    assertFalse(pusher.wroteToFirstLocationsOnly());
  }

  @Test
  void commitSucceedsWhenTheServersThatMissedItAreGoneForReaders() throws Exception {
    FakeShuffleServer s1 = newServer();
    FakeShuffleServer s2 = newServer();
    FakeShuffleServer s3 = newServer();
    FakeShuffleServer s4 = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(s1.address(), s2.address())))
            .at(1, new PartitionLocation(0, List.of(s3.address(), s4.address())));
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 2);
    add(pusher, 0, 100);
    add(pusher, 1, 100);
    pusher.finish();
    // s1 restarted (it knows the shuffle no more); s4 is dead.
    s1.failNext(CommitMapOutputRequest.class, StatusCode.UNKNOWN_SHUFFLE, 1);
    s4.close();

    pusher.commit(0);

    assertEquals(1, s2.committedCount(0, ATTEMPT));
    assertEquals(1, s3.committedCount(1, ATTEMPT));
    assertNull(s1.committedCount(0, ATTEMPT));
  }

  @Test
  void commitFailsWhenAServerThatMayStillBeReadRefusedIt() throws Exception {
    // A reader takes the counts from the first server of the chain that answers: if s1 serves
    // reads without the commit, the attempt's blocks would be missing there.
    FakeShuffleServer s1 = newServer();
    FakeShuffleServer s2 = newServer();
    RecordingLocator locator =
        new RecordingLocator().at(0, new PartitionLocation(0, List.of(s1.address(), s2.address())));
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 1);
    add(pusher, 0, 100);
    pusher.finish();
    s1.failNext(CommitMapOutputRequest.class, StatusCode.INTERNAL_ERROR, 1);

    IOException e = assertThrows(IOException.class, () -> pusher.commit(0));
    assertTrue(
        e.getMessage().contains(s1.address().serverId())
            && e.getMessage().contains("readers may still read"),
        e.getMessage());
    assertEquals(1, s2.committedCount(0, ATTEMPT));
  }

  @Test
  void commitFailsWhenNoServerOfALocationTookIt() throws Exception {
    FakeShuffleServer s1 = newServer();
    FakeShuffleServer s2 = newServer();
    FakeShuffleServer s3 = newServer();
    RecordingLocator locator =
        new RecordingLocator()
            .at(0, new PartitionLocation(0, List.of(s3.address())))
            .at(1, new PartitionLocation(0, List.of(s1.address(), s2.address())));
    MapOutputPusher pusher = pusher(settings(1 << 20, 1 << 20, QUICK), locator, 2);
    add(pusher, 0, 100);
    add(pusher, 1, 100);
    pusher.finish();
    s1.failNext(CommitMapOutputRequest.class, StatusCode.UNKNOWN_APPLICATION, 1);
    s2.close();

    IOException e = assertThrows(IOException.class, () -> pusher.commit(3));
    assertTrue(e.getMessage().contains("no server of partition 1's location"), e.getMessage());
    assertTrue(
        e.getMessage().contains(s1.address().serverId())
            && e.getMessage().contains(s2.address().serverId()),
        e.getMessage());
    assertEquals(1, s3.committedCount(0, ATTEMPT), "the other location took it");
  }

  @Test
  void aCommitAnsweredBusyIsRetried() throws Exception {
    FakeShuffleServer s = newServer();
    s.failNext(CommitMapOutputRequest.class, StatusCode.BUSY, 2);
    MapOutputPusher pusher =
        pusher(settings(1 << 20, 1 << 20, QUICK), new RecordingLocator().at(0, 0, s), 1);
    add(pusher, 0, 100);
    pusher.finish();

    pusher.commit(0);

    assertEquals(3, s.received(CommitMapOutputRequest.class).size());
    assertEquals(1, s.committedCount(0, ATTEMPT));
    assertEquals(2, pushRetries.count, "each commit sent again is counted");
  }

  // ---- abort ----

  @Test
  void aKilledTaskStopsWaitingForAcknowledgements() throws Exception {
    FakeShuffleServer s = newServer().holdPushes(true);
    AtomicReference<Boolean> killed = new AtomicReference<>(false);
    MapOutputPusher pusher =
        new MapOutputPusher(
            clients,
            PooledByteBufAllocator.DEFAULT,
            timer,
            settings(1_000, 1 << 20, QUICK),
            new RecordingLocator().at(0, 0, s),
            APP,
            SHUFFLE,
            1,
            ATTEMPT,
            killed::get);
    pushers.add(pusher);
    add(pusher, 0, 500);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread finisher =
        new Thread(
            () -> {
              try {
                pusher.finish();
              } catch (Throwable t) {
                failed.set(t);
              }
            },
            "finisher");
    finisher.start();
    Await.until(() -> s.heldPushes() == 1, "the push held by the server");
    killed.set(true);
    finisher.join();
    assertTrue(
        failed.get() instanceof IOException && failed.get().getMessage().contains("killed"),
        String.valueOf(failed.get()));
    pusher.abort();
    s.releaseHeldPushes();
    Await.until(() -> pusher.bufferedBytes() == 0, "the held push to end");
  }

  @Test
  void abortReleasesQueuedAndInFlightBlocks() throws Exception {
    FakeShuffleServer s1 = newServer().holdPushes(true);
    FakeShuffleServer s2 = newServer();
    RecordingLocator locator = new RecordingLocator().at(0, 0, s1).at(1, 0, s2);
    MapOutputPusher pusher = pusher(settings(1_000, 1 << 20, QUICK), locator, 2);
    for (int i = 0; i < 5; i++) {
      add(pusher, 0, 500); // batches of two blocks go out to s1 and wait there
    }
    add(pusher, 1, 300); // queued for s2, never sent
    Await.until(() -> s1.heldPushes() == 2, "two pushes held by s1");

    pusher.abort();
    assertEquals(2_000, pusher.bufferedBytes(), "what is in flight is released when it ends");
    ByteBuf late = PooledByteBufAllocator.DEFAULT.directBuffer(10).writeZero(10);
    IOException e = assertThrows(IOException.class, () -> pusher.add(1, late, 10));
    assertTrue(e.getMessage().contains("aborted"), e.getMessage());
    assertEquals(0, late.refCnt());

    s1.releaseHeldPushes();
    Await.until(() -> pusher.bufferedBytes() == 0, "in-flight pushes to end");
    assertTrue(s2.received(PushDataRequest.class).isEmpty());
    assertThrows(IOException.class, pusher::finish);
  }

  @Test
  void abortDuringABackOffReleasesTheBatchWhenTheRetriesEnd() throws Exception {
    FakeShuffleServer s = newServer();
    s.failNext(PushDataRequest.class, StatusCode.NO_BUFFER, 100);
    MapOutputPusher pusher =
        pusher(
            settings(100, 1 << 20, new Backoff(Duration.ofMillis(5), Duration.ofMillis(5), 20)),
            new RecordingLocator().at(0, 0, s),
            1);
    add(pusher, 0, 100);
    Await.until(() -> s.pushArrivals().size() >= 2, "a retry");

    pusher.abort();
    Await.until(() -> pusher.bufferedBytes() == 0, "the retries to end");
    assertTrue(s.memory(0).isEmpty());
  }

  // ---- helpers ----

  record Relocation(Map<Integer, Integer> epochs, String failedServerId, String reason) {}

  /** Locations set by the test; relocation hands out the next location set for a partition. */
  static final class RecordingLocator implements PartitionLocator {
    final Map<Integer, PartitionLocation> current = new ConcurrentHashMap<>();
    final Map<Integer, PartitionLocation> next = new ConcurrentHashMap<>();
    final List<Relocation> calls = new CopyOnWriteArrayList<>();

    RecordingLocator at(int partition, PartitionLocation location) {
      current.put(partition, location);
      return this;
    }

    RecordingLocator at(int partition, int epoch, FakeShuffleServer server) {
      return at(partition, new PartitionLocation(epoch, List.of(server.address())));
    }

    RecordingLocator movesTo(int partition, PartitionLocation location) {
      next.put(partition, location);
      return this;
    }

    RecordingLocator movesTo(int partition, int epoch, FakeShuffleServer server) {
      return movesTo(partition, new PartitionLocation(epoch, List.of(server.address())));
    }

    @Override
    public PartitionLocation location(int partition) {
      return current.get(partition);
    }

    @Override
    public CompletableFuture<Map<Integer, PartitionLocation>> relocate(
        int[] partitions, int[] epochs, String failedServerId, String reason) {
      Map<Integer, Integer> asked = new LinkedHashMap<>();
      for (int i = 0; i < partitions.length; i++) {
        asked.put(partitions[i], epochs[i]);
      }
      calls.add(new Relocation(asked, failedServerId, reason));
      Map<Integer, PartitionLocation> moved = new HashMap<>();
      for (int p : partitions) {
        PartitionLocation location = next.remove(p);
        if (location == null) {
          return CompletableFuture.failedFuture(new IOException("no location for " + p));
        }
        current.put(p, location);
        moved.put(p, location);
      }
      return CompletableFuture.completedFuture(moved);
    }
  }

  /** The pushes and commits the pusher sent again, as the Spark UI counts them. */
  private static final class PushRetries implements TransferCounters {
    volatile int count;

    @Override
    public synchronized void pushRetried() {
      count++;
    }
  }

  /**
   * Partition 0 at {@code primary} with {@code lostReplica}: the primary answers the first push
   * REPLICA_UNAVAILABLE, and the partition moves to {@code primary} with {@code newReplica}.
   */
  private static RecordingLocator replicaLostOnce(
      FakeShuffleServer primary, FakeShuffleServer lostReplica, FakeShuffleServer newReplica) {
    primary.failNext(PushDataRequest.class, StatusCode.REPLICA_UNAVAILABLE, 1);
    return new RecordingLocator()
        .at(0, new PartitionLocation(0, List.of(primary.address(), lostReplica.address())))
        .movesTo(0, new PartitionLocation(1, List.of(primary.address(), newReplica.address())));
  }

  /** The test's connections, with this JVM's liveness suspecting {@code suspected} (by port). */
  private static Connections suspecting(FakeShuffleServer... suspected) {
    Set<Integer> ports = new HashSet<>();
    for (FakeShuffleServer server : suspected) {
      ports.add(server.port());
    }
    return new Connections() {
      @Override
      public CompletableFuture<TransportClient> getClientAsync(String host, int port) {
        return clients.getClientAsync(host, port);
      }

      @Override
      public boolean suspects(String host, int port) {
        return ports.contains(port);
      }
    };
  }

  private static PushSettings settings(long batchSize, long maxBuffered, Backoff backoff) {
    return new PushSettings(batchSize, maxBuffered, backoff, 3);
  }

  /** A pusher of 1000-byte batches whose pushes {@code pace} times. */
  private MapOutputPusher pacedPusher(PushPace pace, PartitionLocator locator, int numPartitions) {
    return pusher(clients, settings(1000, 1 << 20, QUICK), locator, numPartitions, pace);
  }

  private MapOutputPusher pusher(
      PushSettings settings, PartitionLocator locator, int numPartitions) {
    return pusher(clients, settings, locator, numPartitions);
  }

  private MapOutputPusher pusher(
      Connections connections, PushSettings settings, PartitionLocator locator, int numPartitions) {
    return pusher(connections, settings, locator, numPartitions, PushPace.OFF);
  }

  private MapOutputPusher pusher(
      Connections connections,
      PushSettings settings,
      PartitionLocator locator,
      int numPartitions,
      PushPace pace) {
    MapOutputPusher pusher =
        new MapOutputPusher(
            connections,
            PooledByteBufAllocator.DEFAULT,
            timer,
            settings,
            locator,
            APP,
            SHUFFLE,
            numPartitions,
            ATTEMPT,
            () -> false,
            pushRetries,
            pace);
    pushers.add(pusher);
    return pusher;
  }

  /** Adds a block of random bytes (its uncompressed length three times its size); returns them. */
  private static byte[] add(MapOutputPusher pusher, int partition, int size) throws IOException {
    byte[] bytes = new byte[size];
    ThreadLocalRandom.current().nextBytes(bytes);
    pusher.add(
        partition, PooledByteBufAllocator.DEFAULT.directBuffer(size).writeBytes(bytes), 3 * size);
    return bytes;
  }

  private FakeShuffleServer newServer() {
    FakeShuffleServer s = new FakeShuffleServer();
    servers.add(s);
    return s;
  }

  private static List<Block> sortedBySequence(List<Block> blocks) {
    return blocks.stream().sorted((a, b) -> Integer.compare(a.sequence(), b.sequence())).toList();
  }

  private static List<Long> bodySizes(FakeShuffleServer s) {
    return s.received(PushDataRequest.class).stream()
        .map(r -> BlockDescriptor.totalLength(r.blocks()))
        .sorted((a, b) -> Long.compare(b, a))
        .toList();
  }

  /** Partition -> block count of the commits {@code s} received. */
  private static Map<Integer, Integer> commits(FakeShuffleServer s) {
    Map<Integer, Integer> counts = new HashMap<>();
    for (CommitMapOutputRequest r : s.received(CommitMapOutputRequest.class)) {
      for (int i = 0; i < r.partitionIds().length; i++) {
        assertNull(
            counts.put(r.partitionIds()[i], r.blockCounts()[i]),
            "partition " + r.partitionIds()[i] + " listed twice");
      }
    }
    return counts;
  }

  /** A loopback address nothing listens on (bound, then released). */
  private static ServerAddress deadAddress() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return new ServerAddress("dead-" + socket.getLocalPort(), "127.0.0.1", socket.getLocalPort());
    }
  }
}
