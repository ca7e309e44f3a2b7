package io.sluice.client.spark.read;

import static io.sluice.client.spark.read.FakeShuffleServer.block;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.client.spark.read.FakeShuffleServer.Block;
import io.sluice.client.spark.read.ShuffleBlockFetcher.PartitionSource;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fetch pipeline against a fake server on a real socket, through the real transport client. */
@Timeout(60)
class ShuffleBlockFetcherTest {
  private static final String APP = "app-1";
  private static final int SHUFFLE = 4;
  private static final long A = 101;
  private static final long B = 102;
  private static final long SPECULATIVE = 103;
  private static final Runnable NOTHING = () -> {};
  private static final FetchSettings WIDE =
      new FetchSettings(64L << 20, 8 << 20, Duration.ofMillis(1), 3);

  private static TransportClientFactory clients;
  private static ScheduledExecutorService timer;
  private FakeShuffleServer server;
  private final List<ShuffleBlockFetcher> fetchers = new ArrayList<>();

  /** A block as the task took it. */
  private record Taken(int partition, long attempt, long blockId, byte[] bytes, int crc) {}

  @BeforeAll
  static void startClient() {
    SluiceConf conf = SluiceConf.empty().with(TransportOptions.REQUEST_TIMEOUT, "500ms");
    clients = new TransportContext(new TransportConf(conf), "reader-test",
        PooledByteBufAllocator.DEFAULT).createClientFactory();
    timer = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterAll
  static void stopClient() {
    clients.close();
    timer.shutdownNow();
  }

  @BeforeEach
  void startServer() {
    server = new FakeShuffleServer();
  }

  @AfterEach
  void stop() {
    fetchers.forEach(ShuffleBlockFetcher::close);
    server.close();
  }

  @Test
  void readsMemoryThenIndexThenOnlyTheDiskBytesOfCountedCommittedBlocksNotYetRead()
      throws Exception {
    int p = 3;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    Block a3 = block(p, A, 3, 1000);
    Block a9 = block(p, A, 9, 1000); // pushed but never committed
    Block b0 = block(p, B, 0, 1000);
    Block b1 = block(p, B, 1, 1000);
    Block z0 = block(p, SPECULATIVE, 0, 1000);
    server.onDisk(p, a0, a1, z0, a2, a9, b0, b1, a1)
        .inMemory(p, b1, z0, a3)
        .commit(p, a0, a1, a2, a3, b0, b1, z0);

    List<Taken> taken = readAll(start(WIDE, source(p, A, B)));

    assertBlocks(List.of(a0, a1, a2, a3, b0, b1), taken);
    // a0 and a1 are adjacent: one read. z0 and a9 are never requested, b1 came from memory and
    // the duplicate index entry of a1 is read once.
    assertEquals(List.of("0+2000", "3000+1000", "5000+1000"), dataReads());
    List<Class<?>> order = server.received(RequestMessage.class).stream()
        .<Class<?>>map(Object::getClass).distinct().toList();
    assertEquals(List.of(GetShuffleResultRequest.class, FetchMemoryDataRequest.class,
        FetchIndexRequest.class, FetchDataRequest.class), order);
  }

  @Test
  void continuesShortReadsWhereTheyEndedAndJoinsABlockSplitAcrossAnswers() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    Block a3 = block(p, A, 3, 1000);
    server.onDisk(p, a0, a1).endFileHere(p).onDisk(p, a2, a3).endFileAt(p, 2500)
        .commit(p, a0, a1, a2, a3);

    List<Taken> taken = readAll(start(WIDE, source(p, A)));

    assertBlocks(List.of(a0, a1, a2, a3), taken);
    assertEquals(List.of("0+4000", "2000+2000", "2500+1500"), dataReads());
  }

  @Test
  void readsMemoryPageByPageAndDropsWhatDoesNotCount() throws Exception {
    int p = 1;
    List<Block> counted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Block b = block(p, A, i, 30_000);
      counted.add(b);
      server.inMemory(p, b);
      if (i == 4) {
        server.inMemory(p, block(p, SPECULATIVE, 0, 30_000));
      }
    }
    server.commit(p, counted.toArray(new Block[0]));

    List<Taken> taken = readAll(start(new FetchSettings(1 << 20, 64 << 10, Duration.ofMillis(1), 3),
        source(p, A)));

    assertBlocks(counted, taken);
    assertTrue(server.received(FetchMemoryDataRequest.class).size() >= 5,
        "64 KiB pages of 30 KB blocks");
    assertTrue(dataReads().isEmpty());
  }

  @Test
  void aCommittedBlockFoundNowhereFailsThePartitionNamingItsAttempt() throws Exception {
    int p = 2;
    Block a0 = block(p, A, 0, 100);
    Block lost = block(p, B, 0, 100);
    server.onDisk(p, a0).commit(p, a0, lost);

    ShuffleBlockFetcher fetcher = start(WIDE, source(p, A, B));
    PartitionFetchException e = assertThrows(PartitionFetchException.class, () -> readAll(fetcher));

    assertEquals(p, e.partition());
    assertEquals(B, e.taskAttemptId());
    assertTrue(e.getMessage().contains("block " + lost.blockId()), e.getMessage());
    assertSame(e, assertThrows(PartitionFetchException.class, () -> fetcher.take(NOTHING)));
  }

  @Test
  void aCountedAttemptWithoutCommittedBlocksFailsAtOnce() throws Exception {
    int p = 2;
    Block a0 = block(p, A, 0, 100);
    server.onDisk(p, a0).commit(p, a0);

    PartitionFetchException e = assertThrows(PartitionFetchException.class,
        () -> readAll(start(WIDE, source(p, A, B))));

    assertEquals(B, e.taskAttemptId());
    assertTrue(server.received(FetchIndexRequest.class).isEmpty());
  }

  @Test
  void retriesRetriableStatusesAndTimeoutsWithBackOff() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    Block a1 = block(p, A, 1, 100);
    server.onDisk(p, a0).inMemory(p, a1).commit(p, a0, a1)
        .failNext(GetShuffleResultRequest.class, StatusCode.SHUTTING_DOWN, 1)
        .ignoreNext(FetchMemoryDataRequest.class)
        .failNext(FetchIndexRequest.class, StatusCode.NO_BUFFER, 1)
        .failNext(FetchDataRequest.class, StatusCode.BUSY, 2);

    List<Taken> taken = readAll(start(WIDE, source(p, A)));

    assertBlocks(List.of(a0, a1), taken);
    assertEquals(2, server.received(GetShuffleResultRequest.class).size());
    assertEquals(2, server.received(FetchMemoryDataRequest.class).size());
    assertEquals(2, server.received(FetchIndexRequest.class).size());
    assertEquals(List.of("0+100", "0+100", "0+100"), dataReads());
  }

  @Test
  void aNonRetriableErrorFailsWithoutRetrying() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    server.onDisk(p, a0).commit(p, a0)
        .failNext(FetchIndexRequest.class, StatusCode.DATA_NOT_FOUND, 1);

    PartitionFetchException e = assertThrows(PartitionFetchException.class,
        () -> readAll(start(WIDE, source(p, A))));

    assertEquals(-1, e.taskAttemptId());
    assertTrue(e.getMessage().contains("DATA_NOT_FOUND"), e.getMessage());
    assertEquals(1, server.received(FetchIndexRequest.class).size());
  }

  @Test
  void givesUpWhenRetriesAreSpent() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    server.onDisk(p, a0).commit(p, a0).failNext(FetchDataRequest.class, StatusCode.BUSY, 10);

    PartitionFetchException e = assertThrows(PartitionFetchException.class, () -> readAll(start(
        new FetchSettings(1 << 20, 1 << 20, Duration.ofMillis(1), 2), source(p, A))));

    assertTrue(e.getMessage().contains("after 2 retries"), e.getMessage());
    assertEquals(3, dataReads().size());
  }

  @Test
  void aLostConnectionFailsAtOnce() throws Exception {
    int p = 0;
    PartitionSource source = source(p, A);
    server.close();

    long started = System.nanoTime();
    assertThrows(PartitionFetchException.class, () -> readAll(start(WIDE, source)));
    assertTrue(System.nanoTime() - started < 5_000_000_000L, "no retries of a lost connection");
  }

  @Test
  void staysWithinTheBytesInFlightUntilTheTaskConsumes() throws Exception {
    int p = 0;
    List<Block> counted = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Block b = block(p, A, i, 50_000);
      counted.add(b);
      // A block that does not count between two that do: every counted block is its own read.
      server.onDisk(p, b, block(p, SPECULATIVE, i, 10));
    }
    server.commit(p, counted.toArray(new Block[0]));
    ShuffleBlockFetcher fetcher =
        start(new FetchSettings(160_000, 64 << 10, Duration.ofMillis(1), 3), source(p, A));

    awaitStable(() -> dataReads().size() == 3);
    assertEquals(3, dataReads().size(), "three 50 KB reads fit in 160 KB");
    FetchedBlock first = fetcher.take(NOTHING);
    fetcher.consumed(first);
    awaitStable(() -> dataReads().size() == 4);

    List<Taken> taken = new ArrayList<>(List.of(new Taken(first.partition(),
        first.taskAttemptId(), first.blockId(), null, 0)));
    taken.addAll(readAll(fetcher));
    assertEquals(12, taken.size());
    assertEquals(12, dataReads().size());
  }

  @Test
  void readsUpcomingPartitionsAheadOfTheTask() throws Exception {
    Map<Integer, Block> blocks = new HashMap<>();
    for (int p : new int[] {1, 2, 5}) {
      Block b = block(p, A, 0, 1000);
      blocks.put(p, b);
      server.onDisk(p, b).commit(p, b);
    }
    ShuffleBlockFetcher fetcher = start(WIDE, source(1, A), source(2, A), source(5, A));

    awaitStable(() -> dataReads().size() == 3);
    assertEquals(List.of(1, 2, 5), server.received(FetchDataRequest.class).stream()
        .map(FetchDataRequest::partitionId).sorted().toList());

    List<Taken> taken = readAll(fetcher);
    assertEquals(3, taken.size());
    for (Taken t : taken) {
      assertArrayEquals(blocks.get(t.partition()).bytes(), t.bytes());
    }
  }

  @Test
  void aFailureOvertakesQueuedBlocksAndReleasesThem() throws Exception {
    Block good = block(1, A, 0, 1000);
    Block lost = block(2, A, 0, 1000);
    server.onDisk(1, good).commit(1, good).commit(2, lost);
    ShuffleBlockFetcher fetcher = start(WIDE, source(1, A), source(2, A));

    // Whether or not partition 1's block was queued first, the failure comes first. Partition 1
    // may not get as far as its index when partition 2 fails first: wait for the failing one only.
    awaitStable(() -> server.received(FetchIndexRequest.class).stream()
        .anyMatch(r -> r.partitionId() == 2));

    PartitionFetchException e = assertThrows(PartitionFetchException.class,
        () -> fetcher.take(NOTHING));
    assertEquals(2, e.partition());
  }

  @Test
  void closeReleasesWhatIsQueuedOrInFlight() throws Exception {
    int p = 0;
    List<Block> counted = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Block b = block(p, A, i, 20_000);
      counted.add(b);
      server.onDisk(p, b, block(p, SPECULATIVE, i, 10));
      server.inMemory(p, block(p, A, 100 + i, 5_000));
    }
    server.commit(p, counted.toArray(new Block[0]));
    ShuffleBlockFetcher fetcher =
        start(new FetchSettings(200_000, 64 << 10, Duration.ofMillis(1), 3), source(p, A));

    FetchedBlock first = fetcher.take(NOTHING);
    fetcher.consumed(first);
    fetcher.close();
    fetcher.close();
    // Answers still on their way are released on arrival; the leak detector checks the rest.
    awaitStable(() -> true);
  }

  @Test
  void noPartitionsMeansNothingToRead() throws Exception {
    ShuffleBlockFetcher fetcher = start(WIDE);
    assertNull(fetcher.take(NOTHING));
    assertNull(fetcher.take(NOTHING));
    assertTrue(server.received(RequestMessage.class).isEmpty());
  }

  // ---- helpers ----

  private PartitionSource source(int partition, long... attempts) throws Exception {
    return new PartitionSource(partition, clients.getClient("127.0.0.1", server.port()),
        "fake", attempts);
  }

  private ShuffleBlockFetcher start(FetchSettings settings, PartitionSource... sources) {
    ShuffleBlockFetcher fetcher = new ShuffleBlockFetcher(APP, SHUFFLE, List.of(sources),
        settings, FakeShuffleServer.LAYOUT, PooledByteBufAllocator.DEFAULT, timer);
    fetchers.add(fetcher);
    fetcher.start();
    return fetcher;
  }

  private static List<Taken> readAll(ShuffleBlockFetcher fetcher) throws Exception {
    List<Taken> taken = new ArrayList<>();
    FetchedBlock b;
    while ((b = fetcher.take(NOTHING)) != null) {
      try {
        taken.add(new Taken(b.partition(), b.taskAttemptId(), b.blockId(),
            ByteBufUtil.getBytes(b.data()), b.crc32c()));
      } finally {
        fetcher.consumed(b);
      }
    }
    return taken;
  }

  private static void assertBlocks(List<Block> expected, List<Taken> taken) {
    Map<String, Taken> byKey = new HashMap<>();
    for (Taken t : taken) {
      assertEquals(null, byKey.put(t.attempt() + "/" + t.blockId(), t), "taken twice: " + t);
    }
    assertEquals(expected.size(), taken.size());
    for (Block b : expected) {
      Taken t = byKey.get(b.taskAttemptId() + "/" + b.blockId());
      assertTrue(t != null, "missing " + b);
      assertArrayEquals(b.bytes(), t.bytes());
      assertEquals(b.crc(), t.crc());
    }
  }

  private List<String> dataReads() {
    return server.received(FetchDataRequest.class).stream()
        .map(r -> r.offset() + "+" + r.length()).toList();
  }

  /** Waits until {@code condition} holds and the server has received nothing new for 200 ms. */
  private void awaitStable(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    int seen = -1;
    long quietSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      int now = server.received(RequestMessage.class).size();
      if (now != seen) {
        seen = now;
        quietSince = System.nanoTime();
      } else if (condition.getAsBoolean() && System.nanoTime() - quietSince > 200_000_000L) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the server did not settle");
  }
}
