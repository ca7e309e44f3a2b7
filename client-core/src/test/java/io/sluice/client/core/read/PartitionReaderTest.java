package io.sluice.client.core.read;

import static io.sluice.client.core.read.FakeShuffleServer.block;
import static io.sluice.client.core.read.FakeShuffleServer.corrupted;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.client.core.TransferCounters;
import io.sluice.client.core.read.FakeShuffleServer.Block;
import io.sluice.client.core.read.PartitionReader.PartitionSource;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.shuffle.Backoff;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The partition reader against fake servers on real sockets, through the real transport client: the
 * read semantics of one server, and the fail-over along a location's chain and across a partition's
 * locations.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PartitionReaderTest {
  private static final String APP = "app-1";
  private static final int SHUFFLE = 4;
  private static final long A = 101;
  private static final long B = 102;
  private static final long SPECULATIVE = 103;
  private static final Runnable NOTHING = () -> {};
  private static final FetchSettings WIDE = new FetchSettings(64L << 20, 8 << 20, backoff(3));

  private static TransportClientFactory clients;
  private static ScheduledExecutorService timer;
  private FakeShuffleServer server;
  private final List<FakeShuffleServer> servers = new ArrayList<>();
  private final List<PartitionReader> readers = new ArrayList<>();
  private final Counting counters = new Counting();

  /** A block as the task took it. */
  private record Taken(
      int partition, long attempt, int sequence, byte[] bytes, int uncompressedLength) {}

  @BeforeAll
  static void startClient() {
    SluiceConf conf = SluiceConf.empty().with(TransportOptions.REQUEST_TIMEOUT, "500ms");
    clients =
        new TransportContext(new TransportConf(conf), "reader-test", PooledByteBufAllocator.DEFAULT)
            .createClientFactory();
    timer = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterAll
  static void stopClient() {
    clients.close();
    timer.shutdownNow();
  }

  @BeforeEach
  void startServer() {
    server = newServer();
  }

  @AfterEach
  void stop() {
    readers.forEach(PartitionReader::close);
    servers.forEach(FakeShuffleServer::close);
  }

  // ---- one server ----

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
    server
        .onDisk(p, a0, a1, z0, a2, a9, b0, b1, a1)
        .inMemory(p, b1, z0, a3)
        .commit(p, a0, a1, a2, a3, b0, b1, z0);

    List<Taken> taken = readAll(start(WIDE, source(p, A, B)));

    assertBlocks(List.of(a0, a1, a2, a3, b0, b1), taken);
    // a0 and a1 are adjacent: one read. z0 and a9 are never requested, b1 came from memory and
    // the duplicate index entry of a1 is read once.
    assertEquals(List.of("0+2000", "3000+1000", "5000+1000"), dataReads(server));
    List<Class<?>> order =
        server.received(RequestMessage.class).stream()
            .<Class<?>>map(Object::getClass)
            .distinct()
            .toList();
    assertEquals(
        List.of(
            GetShuffleResultRequest.class,
            FetchMemoryDataRequest.class,
            FetchIndexPageRequest.class,
            FetchDataRequest.class),
        order);
  }

  @Test
  void aPartitionWhollyInMemoryIsReadWithoutItsIndex() throws Exception {
    int p = 2;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block b0 = block(p, B, 0, 1000);
    server.inMemory(p, a0, a1, b0).commit(p, a0, a1, b0);

    List<Taken> taken = readAll(start(WIDE, source(p, A, B)));

    assertBlocks(List.of(a0, a1, b0), taken);
    assertEquals(
        List.of(GetShuffleResultRequest.class, FetchMemoryDataRequest.class),
        server.received(RequestMessage.class).stream().<Class<?>>map(Object::getClass).toList());
  }

  @Test
  void aFirstMemoryPageThatArrivesBeforeTheCountsIsTakenInAfterThem() throws Exception {
    // The counts are refused once (BUSY) and asked for again, so the memory page, asked for
    // together with them, arrives first. It must wait: a1 is past the one block A committed and
    // only the counts tell; and only with them does the reader know the index is not needed.
    int p = 2;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    server
        .inMemory(p, a0, a1)
        .commitCount(p, A, 1)
        .failNext(GetShuffleResultRequest.class, StatusCode.BUSY, 1);

    List<Taken> taken = readAll(start(WIDE, source(p, A)));

    assertBlocks(List.of(a0), taken);
    assertEquals(
        List.of(
            GetShuffleResultRequest.class,
            FetchMemoryDataRequest.class,
            GetShuffleResultRequest.class),
        server.received(RequestMessage.class).stream().<Class<?>>map(Object::getClass).toList());
  }

  @Test
  void aFirstMemoryPageWaitingForCountsThatNeverComeIsReleasedAndTheReplicaRead() throws Exception {
    int p = 2;
    Block a0 = block(p, A, 0, 1000);
    FakeShuffleServer replica = newServer();
    // The counts never come (a timeout is asked again once): the page, answered at once, waits
    // for them until the server is given up on, and must then be released.
    server
        .inMemory(p, a0)
        .commit(p, a0)
        .ignoreNext(GetShuffleResultRequest.class)
        .ignoreNext(GetShuffleResultRequest.class);
    replica.inMemory(p, a0).commit(p, a0);

    // A budget of one page: had the parked page's bytes not been given back with it, the
    // replica's first page would wait for room for ever. (Netty's leak detector, at paranoid in
    // every test JVM, fails the run had the page itself not been released.)
    List<Taken> taken =
        readAll(
            start(
                new FetchSettings(4096, 4096, backoff(3)),
                source(
                    p,
                    List.of(new PartitionLocation(0, List.of(server.address(), replica.address()))),
                    A)));

    assertBlocks(List.of(a0), taken);
    assertEquals(1, server.received(FetchMemoryDataRequest.class).size());
    assertEquals(1, counters.replicaReads.get());
  }

  @Test
  void readsTheIndexPageByPageAsTheServerCutsIt() throws Exception {
    int p = 3;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block z0 = block(p, SPECULATIVE, 0, 1000);
    Block a2 = block(p, A, 2, 1000);
    Block b0 = block(p, B, 0, 1000);
    server.indexPagesOf(2).onDisk(p, a0, a1, z0, a2, b0).commit(p, a0, a1, a2, b0, z0);

    List<Taken> taken = readAll(start(WIDE, source(p, A, B)));

    assertBlocks(List.of(a0, a1, a2, b0), taken);
    assertEquals(
        List.of(0, 2, 4),
        server.received(FetchIndexPageRequest.class).stream()
            .map(FetchIndexPageRequest::fromEntry)
            .toList());
    // Each page's wanted blocks are planned as they come: adjacent ones of a page in one read.
    assertEquals(List.of("0+2000", "3000+1000", "4000+1000"), dataReads(server));
  }

  @Test
  void readsTheWholeIndexOfAServerOfProtocolFour() throws Exception {
    FakeShuffleServer old = new FakeShuffleServer(4);
    servers.add(old);
    int p = 3;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block b0 = block(p, B, 0, 1000);
    old.onDisk(p, a0, a1).inMemory(p, b0).commit(p, a0, a1, b0);

    List<Taken> taken =
        readAll(
            start(
                WIDE, source(p, List.of(new PartitionLocation(0, List.of(old.address()))), A, B)));

    assertBlocks(List.of(a0, a1, b0), taken);
    assertEquals(1, old.received(FetchIndexRequest.class).size());
    assertTrue(
        old.received(FetchIndexPageRequest.class).isEmpty(),
        "a server of protocol 4 knows no index pages");
  }

  @Test
  void continuesShortReadsWhereTheyEndedAndJoinsABlockSplitAcrossAnswers() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    Block a3 = block(p, A, 3, 1000);
    server
        .onDisk(p, a0, a1)
        .endFileHere(p)
        .onDisk(p, a2, a3)
        .endFileAt(p, 2500)
        .commit(p, a0, a1, a2, a3);

    List<Taken> taken = readAll(start(WIDE, source(p, A)));

    assertBlocks(List.of(a0, a1, a2, a3), taken);
    assertEquals(List.of("0+4000", "2000+2000", "2500+1500"), dataReads(server));
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

    List<Taken> taken =
        readAll(start(new FetchSettings(1 << 20, 64 << 10, backoff(3)), source(p, A)));

    assertBlocks(counted, taken);
    assertTrue(
        server.received(FetchMemoryDataRequest.class).size() >= 5, "64 KiB pages of 30 KB blocks");
    for (FetchMemoryDataRequest r : server.received(FetchMemoryDataRequest.class)) {
      assertArrayEquals(new long[] {A}, r.taskAttemptIds(), "only counted attempts are asked for");
    }
    assertTrue(dataReads(server).isEmpty());
  }

  @Test
  void theFirstMemoryPageAsksForAboutTheExpectedBytesAndLaterPagesForAWholeRequest()
      throws Exception {
    // Spark's map statuses said 100 KB where 300 KB are in memory: the first page holds only its
    // share of the budget, and the rest comes in whole-request pages as usual.
    int p = 1;
    List<Block> counted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Block b = block(p, A, i, 30_000);
      counted.add(b);
      server.inMemory(p, b);
    }
    server.commit(p, counted.toArray(new Block[0]));

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                new PartitionSource(
                    p,
                    List.of(new PartitionLocation(0, List.of(server.address()))),
                    new long[] {A},
                    100_000)));

    assertBlocks(counted, taken);
    List<FetchMemoryDataRequest> pages = server.received(FetchMemoryDataRequest.class);
    assertEquals(2, pages.size());
    assertEquals(150_000 + LocationReader.FIRST_PAGE_SLACK, pages.get(0).maxBytes());
    assertEquals(WIDE.maxRequestBytes(), pages.get(1).maxBytes());
  }

  @Test
  void aCommittedBlockFoundNowhereFailsThePartitionNamingItsAttempt() throws Exception {
    int p = 2;
    Block a0 = block(p, A, 0, 100);
    Block lost = block(p, B, 0, 100);
    server.onDisk(p, a0).commit(p, a0, lost);

    PartitionReader reader = start(WIDE, source(p, A, B));
    PartitionFetchException e = assertThrows(PartitionFetchException.class, () -> readAll(reader));

    assertEquals(p, e.partition());
    assertTrue(
        e.getMessage()
            .contains(
                "block "
                    + lost.sequence()
                    + " of the 1 that map attempt "
                    + B
                    + " committed never arrived"),
        e.getMessage());
    assertSame(e, assertThrows(PartitionFetchException.class, () -> reader.take(NOTHING)));
  }

  @Test
  void aCountedAttemptWithoutACommitFailsThePartitionNamingIt() throws Exception {
    // Protocol 2: a server that lists no commit of B may just not be B's location, so the reader
    // reads on; once every location was read, the missing commit fails the partition.
    int p = 2;
    Block a0 = block(p, A, 0, 100);
    server.onDisk(p, a0).commit(p, a0);

    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> readAll(start(WIDE, source(p, A, B))));

    assertEquals(p, e.partition());
    assertTrue(
        e.getMessage().contains("no server lists a commit of map attempt " + B), e.getMessage());
  }

  @Test
  void retriesRetriableStatusesAndTimeoutsWithBackOff() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    Block a1 = block(p, A, 1, 100);
    server
        .onDisk(p, a0)
        .inMemory(p, a1)
        .commit(p, a0, a1)
        .failNext(GetShuffleResultRequest.class, StatusCode.BUSY, 1)
        .ignoreNext(FetchMemoryDataRequest.class)
        .failNext(FetchIndexPageRequest.class, StatusCode.NO_BUFFER, 1)
        .failNext(FetchDataRequest.class, StatusCode.BUSY, 2);

    List<Taken> taken = readAll(start(WIDE, source(p, A)));

    assertBlocks(List.of(a0, a1), taken);
    assertEquals(2, server.received(GetShuffleResultRequest.class).size());
    assertEquals(2, server.received(FetchMemoryDataRequest.class).size());
    assertEquals(2, server.received(FetchIndexPageRequest.class).size());
    assertEquals(List.of("0+100", "0+100", "0+100"), dataReads(server));
    assertEquals(5, counters.fetchRetries.get(), "each request sent again is counted");
    assertEquals(0, counters.replicaReads.get());
  }

  @Test
  void aNonRetriableErrorFailsWithoutRetrying() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    server
        .onDisk(p, a0)
        .commit(p, a0)
        .failNext(FetchIndexPageRequest.class, StatusCode.DATA_NOT_FOUND, 1);

    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> readAll(start(WIDE, source(p, A))));

    assertEquals(p, e.partition());
    assertTrue(e.getMessage().contains("DATA_NOT_FOUND"), e.getMessage());
    assertEquals(1, server.received(FetchIndexPageRequest.class).size());
  }

  @Test
  void aShuttingDownServerIsNotRetried() throws Exception {
    // SHUTTING_DOWN is no longer retriable: without a replica the read fails at once.
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    server
        .onDisk(p, a0)
        .commit(p, a0)
        .failNext(GetShuffleResultRequest.class, StatusCode.SHUTTING_DOWN, 5);

    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> readAll(start(WIDE, source(p, A))));

    assertTrue(e.getMessage().contains("SHUTTING_DOWN"), e.getMessage());
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
  }

  @Test
  void givesUpWhenRetriesAreSpent() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 100);
    server.onDisk(p, a0).commit(p, a0).failNext(FetchDataRequest.class, StatusCode.BUSY, 10);

    PartitionFetchException e =
        assertThrows(
            PartitionFetchException.class,
            () -> readAll(start(new FetchSettings(1 << 20, 1 << 20, backoff(2)), source(p, A))));

    assertTrue(e.getMessage().contains("after 2 retries"), e.getMessage());
    assertEquals(3, dataReads(server).size());
  }

  @Test
  void aLostConnectionFailsAtOnce() throws Exception {
    int p = 0;
    PartitionSource source = source(p, A);
    server.close();

    long started = System.nanoTime();
    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> readAll(start(WIDE, source)));
    assertTrue(System.nanoTime() - started < 5_000_000_000L, "no retries of a lost connection");
    assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
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
    PartitionReader reader = start(new FetchSettings(160_000, 64 << 10, backoff(3)), source(p, A));

    awaitStable(() -> dataReads(server).size() == 3);
    assertEquals(3, dataReads(server).size(), "three 50 KB reads fit in 160 KB");
    FetchedBlock first = reader.take(NOTHING);
    reader.consumed(first);
    awaitStable(() -> dataReads(server).size() == 4);

    List<Taken> taken =
        new ArrayList<>(
            List.of(
                new Taken(first.partition(), first.taskAttemptId(), first.sequence(), null, 0)));
    taken.addAll(readAll(reader));
    assertEquals(12, taken.size());
    assertEquals(12, dataReads(server).size());
  }

  @Test
  void readsUpcomingPartitionsAheadOfTheTask() throws Exception {
    Map<Integer, Block> blocks = new HashMap<>();
    for (int p : new int[] {1, 2, 5}) {
      Block b = block(p, A, 0, 1000);
      blocks.put(p, b);
      server.onDisk(p, b).commit(p, b);
    }
    PartitionReader reader = start(WIDE, source(1, A), source(2, A), source(5, A));

    awaitStable(() -> dataReads(server).size() == 3);
    assertEquals(
        List.of(1, 2, 5),
        server.received(FetchDataRequest.class).stream()
            .map(FetchDataRequest::partitionId)
            .sorted()
            .toList());

    List<Taken> taken = readAll(reader);
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
    PartitionReader reader = start(WIDE, source(1, A), source(2, A));

    // Whether or not partition 1's block was queued first, the failure comes first. Partition 1
    // may not get as far as its index when partition 2 fails first: wait for the failing one only.
    awaitStable(
        () ->
            server.received(FetchIndexPageRequest.class).stream()
                .anyMatch(r -> r.partitionId() == 2));

    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> reader.take(NOTHING));
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
    PartitionReader reader = start(new FetchSettings(200_000, 64 << 10, backoff(3)), source(p, A));

    FetchedBlock first = reader.take(NOTHING);
    reader.consumed(first);
    reader.close();
    reader.close();
    // Answers still on their way are released on arrival; the leak detector checks the rest.
    awaitStable(() -> true);
  }

  @Test
  void noPartitionsMeansNothingToRead() throws Exception {
    PartitionReader reader = start(WIDE);
    assertNull(reader.take(NOTHING));
    assertNull(reader.take(NOTHING));
    assertTrue(server.received(RequestMessage.class).isEmpty());
  }

  // ---- CRC32C: checked before a block is queued ----

  @Test
  void aCorruptBlockMakesTheReaderReadTheReplicaAndKeepsEachBlockOnce() throws Exception {
    int p = 6;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    FakeShuffleServer replica = newServer();
    server.inMemory(p, a0).onDisk(p, corrupted(a1), a2).commit(p, a0, a1, a2);
    replica.onDisk(p, a0, a1, a2).commit(p, a0, a1, a2);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(new PartitionLocation(0, List.of(server.address(), replica.address()))),
                    A)));

    assertBlocks(List.of(a0, a1, a2), taken);
    assertEquals(List.of("0+2000"), dataReads(server), "a1 and a2 in one read; a1 is corrupt");
    // a0 was kept from the primary's memory; a1 and a2 come from the replica.
    assertEquals(List.of("1000+2000"), dataReads(replica));
  }

  @Test
  void aCorruptBlockInMemoryWithNoReplicaLeftFailsThePartition() throws Exception {
    int p = 6;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    server.inMemory(p, corrupted(a0), a1).commit(p, a0, a1);
    PartitionReader reader = start(WIDE, source(p, A));

    List<Taken> taken = new ArrayList<>();
    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> readInto(reader, taken));

    assertEquals(List.of(), taken, "a corrupt block is never handed out");
    assertEquals(p, e.partition());
    assertTrue(
        e.getMessage().contains("block 0 of map attempt " + A + " is corrupt"), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains("block 0 of the 2 that map attempt " + A + " committed never arrived"),
        e.getMessage());
    assertTrue(dataReads(server).isEmpty(), "no index or data read from a server given up on");
  }

  // ---- chains and locations ----

  @Test
  void aPrimaryMissingBlocksItCommittedIsCompletedFromItsReplica() throws Exception {
    int p = 1;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block b0 = block(p, B, 0, 1000);
    FakeShuffleServer replica = newServer();
    // The primary lost a1 (a disk that failed for reads): it lists the commit but not the block.
    server.onDisk(p, a0, b0).commit(p, a0, a1, b0);
    replica.onDisk(p, a0, a1, b0).commit(p, a0, a1, b0);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(new PartitionLocation(0, List.of(server.address(), replica.address()))),
                    A,
                    B)));

    assertBlocks(List.of(a0, b0, a1), taken);
    assertEquals(1, replica.received(GetShuffleResultRequest.class).size());
    assertEquals(List.of("1000+1000"), dataReads(replica), "only the missing block is read there");
    assertEquals(1, counters.replicaReads.get());
  }

  @Test
  void aPrimaryThatRefusesConnectionsIsReadFromItsReplica() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    FakeShuffleServer replica = newServer();
    replica.onDisk(p, a0, a1).inMemory(p, a2).commit(p, a0, a1, a2);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(new PartitionLocation(0, List.of(deadAddress(), replica.address()))),
                    A)));

    assertBlocks(List.of(a0, a1, a2), taken);
    assertEquals(1, replica.received(GetShuffleResultRequest.class).size());
    assertEquals(1, counters.replicaReads.get());
    assertEquals(0, counters.fetchRetries.get());
  }

  @Test
  void aClosedPrimaryIsReadFromItsReplica() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    FakeShuffleServer replica = newServer();
    server.onDisk(p, a0).commit(p, a0);
    replica.onDisk(p, a0).commit(p, a0);
    ServerAddress primary = server.address();
    server.close();

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p, List.of(new PartitionLocation(0, List.of(primary, replica.address()))), A)));

    assertBlocks(List.of(a0), taken);
  }

  @Test
  void aShuttingDownPrimaryIsReadFromItsReplica() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    FakeShuffleServer replica = newServer();
    server
        .onDisk(p, a0, a1)
        .commit(p, a0, a1)
        .failNext(GetShuffleResultRequest.class, StatusCode.SHUTTING_DOWN, 1);
    replica.onDisk(p, a0, a1).commit(p, a0, a1);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(new PartitionLocation(0, List.of(server.address(), replica.address()))),
                    A)));

    assertBlocks(List.of(a0, a1), taken);
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
    assertTrue(server.received(FetchIndexPageRequest.class).isEmpty());
  }

  /**
   * A primary that stops answering mid-read but answers the transport's probe (alive, as with a
   * hung disk) is never given up by the probe, and its read would wait the request timeout (five
   * minutes here): the reader reads the replica once the connection has been silent for half the
   * liveness timeout, and keeps each block once.
   */
  @Test
  @Timeout(60)
  void aPrimaryThatGoesSilentMidReadIsLeftForItsReplica() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    FakeShuffleServer replica = newServer();
    server.onDisk(p, a0, a1).commit(p, a0, a1).ignoreNext(FetchDataRequest.class);
    replica.onDisk(p, a0, a1).commit(p, a0, a1);
    SluiceConf conf =
        SluiceConf.empty()
            .with(TransportOptions.REQUEST_TIMEOUT, "5min")
            .with(TransportOptions.LIVENESS_TIMEOUT, "2s");
    try (TransportClientFactory watching =
        new TransportContext(
                new TransportConf(conf), "silence-test", PooledByteBufAllocator.DEFAULT)
            .createClientFactory()) {
      List<Taken> taken =
          readAll(
              start(
                  WIDE,
                  watching,
                  source(
                      p,
                      List.of(
                          new PartitionLocation(0, List.of(server.address(), replica.address()))),
                      A)));

      assertBlocks(List.of(a0, a1), taken);
      assertEquals(1, server.received(FetchDataRequest.class).size(), "the silent read");
      assertEquals(1, replica.received(FetchDataRequest.class).size());
      assertEquals(1, counters.replicaReads.get());
      assertEquals(0, counters.fetchRetries.get(), "left for silence, not after a timeout");
    }
  }

  /** A speculative copy or a retry of a task held up by its primary does not wait for it again. */
  @Test
  void aSecondAttemptReadsTheReplicaFirstAndAThirdThePrimary() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    FakeShuffleServer replica = newServer();
    server.onDisk(p, a0).inMemory(p, a1).commit(p, a0, a1);
    replica.onDisk(p, a0).inMemory(p, a1).commit(p, a0, a1);
    List<PartitionLocation> chain = chainTo(replica.address());

    assertBlocks(List.of(a0, a1), readAll(start(WIDE, clients, attempt(1), source(p, chain, A))));
    assertTrue(server.received(RequestMessage.class).isEmpty(), "the primary was not asked");
    assertEquals(1, replica.received(GetShuffleResultRequest.class).size());
    assertEquals(0, counters.replicaReads.get(), "read first, not after a failure");

    assertBlocks(List.of(a0, a1), readAll(start(WIDE, clients, attempt(2), source(p, chain, A))));
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
    assertEquals(1, replica.received(GetShuffleResultRequest.class).size());
  }

  @Test
  void aPrimaryFoundSlowIsPassedOverForItsReplica() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    FakeShuffleServer replica = newServer();
    server.onDisk(p, a0).commit(p, a0);
    replica.onDisk(p, a0).commit(p, a0);
    ReadOrder primarySlow = new ReadOrder(0, server.address().serverId()::equals);

    assertBlocks(
        List.of(a0),
        readAll(start(WIDE, clients, primarySlow, source(p, chainTo(replica.address()), A))));
    assertTrue(server.received(RequestMessage.class).isEmpty(), "the slow primary was not asked");
    assertEquals(1, replica.received(GetShuffleResultRequest.class).size());
  }

  @Test
  void aSecondAttemptWhoseReplicaCannotBeReadGoesOnAroundTheChainToThePrimary() throws Exception {
    int p = 0;
    Block a0 = block(p, A, 0, 1000);
    server.onDisk(p, a0).commit(p, a0);

    List<Taken> taken =
        readAll(start(WIDE, clients, attempt(1), source(p, chainTo(deadAddress()), A)));

    assertBlocks(List.of(a0), taken);
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
    assertEquals(1, counters.replicaReads.get());
  }

  @Test
  void aReplicaMissingBlocksItCommittedIsCompletedFromThePrimaryOnASecondAttempt()
      throws Exception {
    int p = 1;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    FakeShuffleServer replica = newServer();
    server.onDisk(p, a0, a1).commit(p, a0, a1);
    replica.onDisk(p, a0).commit(p, a0, a1);

    List<Taken> taken =
        readAll(start(WIDE, clients, attempt(1), source(p, chainTo(replica.address()), A)));

    assertBlocks(List.of(a0, a1), taken);
    assertEquals(List.of("1000+1000"), dataReads(server), "only the missing block is read there");
  }

  @Test
  void readsTheBlocksOfEveryLocationOfAPartition() throws Exception {
    int p = 4;
    // A wrote blocks 0 and 1 at epoch 0, then its partition moved: blocks 2 and 3 at epoch 1.
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    Block a3 = block(p, A, 3, 1000);
    Block b0 = block(p, B, 0, 1000);
    FakeShuffleServer epoch1 = newServer();
    server.onDisk(p, a0).inMemory(p, a1).commitCount(p, A, 4);
    epoch1.onDisk(p, a2, b0).inMemory(p, a3).commitCount(p, A, 4).commit(p, b0);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(
                        new PartitionLocation(0, List.of(server.address())),
                        new PartitionLocation(1, List.of(epoch1.address()))),
                    A,
                    B)));

    assertBlocks(List.of(a0, a1, a2, a3, b0), taken);
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
    assertEquals(1, epoch1.received(GetShuffleResultRequest.class).size());
  }

  @Test
  void anUnreadableLocationIsSkippedWhenTheOthersHoldEveryCommittedBlock() throws Exception {
    // Epoch 0's server died before it acknowledged anything; the writer moved everything.
    int p = 1;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    server.onDisk(p, a0).inMemory(p, a1).commit(p, a0, a1);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(
                        new PartitionLocation(0, deadAddresses(2)),
                        new PartitionLocation(1, List.of(server.address()))),
                    A)));

    assertBlocks(List.of(a0, a1), taken);
  }

  @Test
  void anUnreadableLocationThatHeldCommittedBlocksFailsNamingWhatIsMissing() throws Exception {
    int p = 1;
    Block a2 = block(p, A, 2, 1000);
    Block a3 = block(p, A, 3, 1000);
    server.onDisk(p, a2, a3).commitCount(p, A, 4);
    ServerAddress dead = deadAddress();

    PartitionFetchException e =
        assertThrows(
            PartitionFetchException.class,
            () ->
                readAll(
                    start(
                        WIDE,
                        source(
                            p,
                            List.of(
                                new PartitionLocation(0, List.of(dead)),
                                new PartitionLocation(1, List.of(server.address()))),
                            A))));

    assertEquals(p, e.partition());
    String m = e.getMessage();
    assertTrue(
        m.contains("block 0 of the 4 that map attempt " + A + " committed never arrived"), m);
    assertTrue(m.contains("no server of epoch 0 [" + dead + "] could be read"), m);
    assertTrue(m.contains("server " + dead + ": cannot connect"), m);
  }

  @Test
  void anAttemptCommittedNowhereFailsEvenWhenEveryLocationWasRead() throws Exception {
    int p = 1;
    Block a0 = block(p, A, 0, 1000);
    Block b0 = block(p, B, 0, 1000);
    FakeShuffleServer epoch1 = newServer();
    server.onDisk(p, a0).commit(p, a0);
    epoch1.onDisk(p, b0); // pushed, never committed

    PartitionFetchException e =
        assertThrows(
            PartitionFetchException.class,
            () ->
                readAll(
                    start(
                        WIDE,
                        source(
                            p,
                            List.of(
                                new PartitionLocation(0, List.of(server.address())),
                                new PartitionLocation(1, List.of(epoch1.address()))),
                            A,
                            B))));

    assertTrue(
        e.getMessage().contains("no server lists a commit of map attempt " + B), e.getMessage());
    assertTrue(
        !e.getMessage().contains("could be read"), "every location was read: " + e.getMessage());
  }

  @Test
  void aServerListedInTwoLocationsIsReadOnce() throws Exception {
    // A replica failed: the partition moved to a chain with the same primary and a new replica.
    int p = 2;
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      blocks.add(block(p, A, i, 1000));
    }
    server
        .onDisk(p, blocks.subList(0, 4).toArray(new Block[0]))
        .inMemory(p, blocks.subList(4, 6).toArray(new Block[0]))
        .commit(p, blocks.toArray(new Block[0]));
    FakeShuffleServer oldReplica = newServer();
    FakeShuffleServer newReplica = newServer();

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(
                        new PartitionLocation(0, List.of(server.address(), oldReplica.address())),
                        new PartitionLocation(1, List.of(server.address(), newReplica.address()))),
                    A)));

    assertBlocks(blocks, taken);
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
    assertEquals(1, server.received(FetchIndexPageRequest.class).size());
    assertEquals(List.of("0+4000"), dataReads(server));
    assertTrue(oldReplica.received(RequestMessage.class).isEmpty());
    assertTrue(newReplica.received(RequestMessage.class).isEmpty());
  }

  @Test
  void whenAServerListedInTwoLocationsFailsEachLocationGoesOnToItsOwnReplica() throws Exception {
    int p = 2;
    Block a0 = block(p, A, 0, 1000);
    Block a1 = block(p, A, 1, 1000);
    Block a2 = block(p, A, 2, 1000);
    Block a3 = block(p, A, 3, 1000);
    // The shared primary holds all four blocks, one of them corrupt; each replica holds its
    // epoch's.
    server.onDisk(p, a0, a1, corrupted(a2), a3).commitCount(p, A, 4);
    FakeShuffleServer replica0 = newServer();
    FakeShuffleServer replica1 = newServer();
    replica0.onDisk(p, a0, a1).commitCount(p, A, 4);
    replica1.onDisk(p, a2, a3).commitCount(p, A, 4);

    List<Taken> taken =
        readAll(
            start(
                WIDE,
                source(
                    p,
                    List.of(
                        new PartitionLocation(0, List.of(server.address(), replica0.address())),
                        new PartitionLocation(1, List.of(server.address(), replica1.address()))),
                    A)));

    assertBlocks(List.of(a0, a1, a2, a3), taken);
    assertEquals(1, server.received(GetShuffleResultRequest.class).size());
    assertEquals(List.of("0+4000"), dataReads(server));
    assertEquals(1, replica1.received(GetShuffleResultRequest.class).size());
    assertEquals(List.of("0+2000"), dataReads(replica1));
  }

  @Test
  void theBudgetStaysConsistentAfterAFailover() throws Exception {
    int p = 0;
    List<Block> counted = new ArrayList<>();
    FakeShuffleServer replica = newServer();
    for (int i = 0; i < 8; i++) {
      Block b = block(p, A, i, 50_000);
      counted.add(b);
      Block filler = block(p, SPECULATIVE, i, 10);
      // The primary's first block is corrupt; every counted block is its own read.
      server.onDisk(p, i == 0 ? corrupted(b) : b, filler);
      replica.onDisk(p, b, filler);
    }
    server.commit(p, counted.toArray(new Block[0]));
    replica.commit(p, counted.toArray(new Block[0]));
    PartitionReader reader =
        start(
            new FetchSettings(120_000, 64 << 10, backoff(3)),
            source(
                p,
                List.of(new PartitionLocation(0, List.of(server.address(), replica.address()))),
                A));

    // Whatever the primary's answers held back, two 50 KB reads of the replica fill 120 KB.
    awaitStable(() -> dataReads(replica).size() == 2);
    assertEquals(2, dataReads(replica).size());
    FetchedBlock first = reader.take(NOTHING);
    assertEquals(0, first.sequence());
    assertArrayEquals(counted.get(0).bytes(), ByteBufUtil.getBytes(first.data()));
    reader.consumed(first);
    awaitStable(() -> dataReads(replica).size() == 3);
    assertEquals(3, dataReads(replica).size());

    List<Taken> taken =
        new ArrayList<>(
            List.of(
                new Taken(p, A, 0, counted.get(0).bytes(), counted.get(0).uncompressedLength())));
    taken.addAll(readAll(reader));
    assertBlocks(counted, taken);
    assertEquals(8, dataReads(replica).size(), "every block read once from the replica");
  }

  // ---- helpers ----

  private static Backoff backoff(int retries) {
    return new Backoff(Duration.ofMillis(1), Backoff.DEFAULT_MAX_WAIT, retries);
  }

  private FakeShuffleServer newServer() {
    FakeShuffleServer s = new FakeShuffleServer();
    servers.add(s);
    return s;
  }

  /** A loopback address nothing listens on (bound, then released). */
  private static ServerAddress deadAddress() throws IOException {
    return deadAddresses(1).get(0);
  }

  /** Distinct loopback addresses nothing listens on. */
  private static List<ServerAddress> deadAddresses(int n) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      List<ServerAddress> addresses = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ServerSocket socket = new ServerSocket(0);
        sockets.add(socket);
        addresses.add(
            new ServerAddress("dead-" + socket.getLocalPort(), "127.0.0.1", socket.getLocalPort()));
      }
      return addresses;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  /** What the reader counted for the Spark UI. */
  private static final class Counting implements TransferCounters {
    final AtomicInteger fetchRetries = new AtomicInteger();
    final AtomicInteger replicaReads = new AtomicInteger();

    @Override
    public void fetchRetried() {
      fetchRetries.incrementAndGet();
    }

    @Override
    public void replicaRead() {
      replicaReads.incrementAndGet();
    }
  }

  /** Attempt {@code n} of a task whose JVM found no server slow. */
  private static ReadOrder attempt(int n) {
    return new ReadOrder(n, serverId -> false);
  }

  /** One location at epoch 0: the test's server, then {@code replica}. */
  private List<PartitionLocation> chainTo(ServerAddress replica) {
    return List.of(new PartitionLocation(0, List.of(server.address(), replica)));
  }

  /** The partition at one location: the test's server alone, at epoch 0. */
  private PartitionSource source(int partition, long... attempts) {
    return source(
        partition, List.of(new PartitionLocation(0, List.of(server.address()))), attempts);
  }

  private static PartitionSource source(
      int partition, List<PartitionLocation> locations, long... attempts) {
    return new PartitionSource(partition, locations, attempts);
  }

  private PartitionReader start(FetchSettings settings, PartitionSource... sources) {
    return start(settings, clients, sources);
  }

  private PartitionReader start(
      FetchSettings settings, TransportClientFactory factory, PartitionSource... sources) {
    return start(settings, factory, ReadOrder.PRIMARY_FIRST, sources);
  }

  private PartitionReader start(
      FetchSettings settings,
      TransportClientFactory factory,
      ReadOrder order,
      PartitionSource... sources) {
    PartitionReader reader =
        new PartitionReader(
            APP,
            SHUFFLE,
            List.of(sources),
            settings,
            factory,
            PooledByteBufAllocator.DEFAULT,
            timer,
            counters,
            order);
    readers.add(reader);
    reader.start();
    return reader;
  }

  private static List<Taken> readAll(PartitionReader reader) throws Exception {
    List<Taken> taken = new ArrayList<>();
    readInto(reader, taken);
    return taken;
  }

  private static void readInto(PartitionReader reader, List<Taken> taken) throws Exception {
    FetchedBlock b;
    while ((b = reader.take(NOTHING)) != null) {
      try {
        taken.add(
            new Taken(
                b.partition(),
                b.taskAttemptId(),
                b.sequence(),
                ByteBufUtil.getBytes(b.data()),
                b.uncompressedLength()));
      } finally {
        reader.consumed(b);
      }
    }
  }

  private static void assertBlocks(List<Block> expected, List<Taken> taken) {
    Map<String, Taken> byKey = new HashMap<>();
    for (Taken t : taken) {
      assertEquals(null, byKey.put(t.attempt() + "/" + t.sequence(), t), "taken twice: " + t);
    }
    assertEquals(expected.size(), taken.size());
    for (Block b : expected) {
      Taken t = byKey.get(b.taskAttemptId() + "/" + b.sequence());
      assertTrue(t != null, "missing " + b);
      assertArrayEquals(b.bytes(), t.bytes());
      assertEquals(b.uncompressedLength(), t.uncompressedLength());
    }
  }

  private static List<String> dataReads(FakeShuffleServer s) {
    return s.received(FetchDataRequest.class).stream()
        .map(r -> r.offset() + "+" + r.length())
        .toList();
  }

  /**
   * Waits until {@code condition} holds and no server has received anything new for 200 ms (so that
   * a read the condition does not expect would have arrived).
   */
  private void awaitStable(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    int seen = -1;
    long quietSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      int now = 0;
      for (FakeShuffleServer s : servers) {
        now += s.received(RequestMessage.class).size();
      }
      if (now != seen) {
        seen = now;
        quietSince = System.nanoTime();
      } else if (condition.getAsBoolean() && System.nanoTime() - quietSince > 200_000_000L) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the servers did not settle");
  }
}
