package io.sluice.client.core.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.sluice.client.core.TransferCounters;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one partition reader of the shuffle protocol: reads a reduce task's partitions from the
 * servers in the background and hands the blocks it keeps to the consuming thread through a queue.
 * The Spark reader, the benchmarks and the tests all read through it.
 *
 * <p>A partition may have several locations (see {@link PartitionLocation}), each a chain of
 * servers holding the same blocks. Every location is read, one after another; within a location the
 * first server that answers is read the way the server's read semantics require: the block counts
 * the counted map attempts committed there ({@code GetShuffleResult}), the blocks still in its
 * memory page by page, then the index, then the data on disk not already read from memory, in reads
 * that merge adjacent blocks. When a server fails (a refused or broken connection, an answer that
 * retries did not cure, a block whose CRC32C does not match, a server that no longer knows the
 * shuffle) the location is read again from the next server of its chain; blocks already kept are
 * not kept twice. A location none of whose servers can be read is skipped: once every location was
 * read, the partition is complete when every counted attempt's commit was found and all its
 * committed blocks arrived, otherwise the read fails with a {@link PartitionFetchException}.
 *
 * <p>Blocks are keyed by (taskAttemptId, sequence) and only counted attempts' blocks are kept, each
 * once. A few partitions read their metadata at once, and all reads run ahead of the consumer
 * within a budget of bytes requested and not yet consumed.
 *
 * <p>Threads: answers arrive on the transport's event loops and retries on the timer; everything
 * that touches the pipeline's state runs through one {@link SerialRunner}. The consumer only takes
 * blocks, gives them back and closes.
 *
 * <p>Buffers: every answer is released once its blocks are cut out of it; each queued block owns a
 * reference that its taker releases through {@link #consumed}. {@link #close()} (or a failure)
 * releases what is queued or partly assembled, and answers that arrive afterwards, or for a server
 * given up on, are released on arrival.
 */
public final class PartitionReader implements BlockSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionReader.class);

  /** Partitions whose metadata (commit counts, memory pages, index) is read at the same time. */
  private static final int MAX_OPEN_PARTITIONS = 8;

  private static final long WAIT_SLICE_MILLIS = 100;

  /** How long the consumer waits for a block before the reader logs what it is waiting for. */
  private static final long STALL_REPORT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static final Object END = new Object();

  /** Bytes of a FetchData answer's frame besides its data: the type byte and the header. */
  private static final int DATA_ANSWER_OVERHEAD =
      1 + FetchDataResponse.ok(0, new NettyManagedBuffer(Unpooled.EMPTY_BUFFER)).encodedLength();

  /**
   * One partition to read.
   *
   * @param partition the partition id
   * @param locations every location the partition had, oldest first
   * @param attempts the map attempts the reader counts that wrote bytes to the partition
   */
  public record PartitionSource(int partition, List<PartitionLocation> locations, long[] attempts) {
    public PartitionSource {
      locations = List.copyOf(locations);
      attempts = attempts.clone();
    }
  }

  private final String appId;
  private final int shuffleId;
  private final FetchSettings settings;
  private final Connections clients;
  private final ByteBufAllocator allocator;
  private final ScheduledExecutorService timer;
  private final TransferCounters counters;
  private final List<Partition> partitions = new ArrayList<>();
  private final SerialRunner runner = new SerialRunner(this::onUnexpected);
  private final LinkedBlockingDeque<Object> ready = new LinkedBlockingDeque<>();
  private final AtomicLong requestNanos = new AtomicLong();

  // Runner state: touched by runner tasks only.
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private final Set<LocationRead> reading = new HashSet<>();
  private long reservedBytes;
  private int nextToOpen;
  private int openPartitions;
  private int completePartitions;
  private boolean stopped;

  // Consumer state.
  private boolean finished;
  private PartitionFetchException failure;

  /**
   * @param sources the partitions to read, in the order to open them
   * @param clients connections to the servers, opened as needed
   * @param allocator for the buffers that join blocks split across two answers
   * @param timer runs retries after their back-off
   */
  public PartitionReader(
      String appId,
      int shuffleId,
      List<PartitionSource> sources,
      FetchSettings settings,
      Connections clients,
      ByteBufAllocator allocator,
      ScheduledExecutorService timer) {
    this(appId, shuffleId, sources, settings, clients, allocator, timer, TransferCounters.NONE);
  }

  /**
   * @param counters told of every request sent again and every read of a replica
   */
  public PartitionReader(
      String appId,
      int shuffleId,
      List<PartitionSource> sources,
      FetchSettings settings,
      Connections clients,
      ByteBufAllocator allocator,
      ScheduledExecutorService timer,
      TransferCounters counters) {
    this.counters = counters;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.settings = settings;
    this.clients = clients;
    this.allocator = allocator;
    this.timer = timer;
    for (PartitionSource source : sources) {
      partitions.add(new Partition(source));
    }
  }

  /** Starts reading. */
  public void start() {
    if (partitions.isEmpty()) {
      ready.add(END);
      return;
    }
    onRunner(this::openNext);
  }

  @Override
  public FetchedBlock take(Runnable whileWaiting)
      throws InterruptedException, PartitionFetchException {
    if (failure != null) {
      throw failure;
    }
    if (finished) {
      return null;
    }
    Object item;
    long waitingSince = System.nanoTime();
    while ((item = ready.poll(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) == null) {
      whileWaiting.run();
      if (System.nanoTime() - waitingSince >= STALL_REPORT_NANOS) {
        waitingSince = System.nanoTime();
        runner.execute(this::reportStall);
      }
    }
    if (item == END) {
      finished = true;
      return null;
    }
    if (item instanceof PartitionFetchException e) {
      failure = e;
      throw e;
    }
    return (FetchedBlock) item;
  }

  @Override
  public void consumed(FetchedBlock block) {
    int length = block.length();
    block.release();
    onRunner(() -> reservedBytes -= length);
  }

  @Override
  public long requestMillis() {
    return TimeUnit.NANOSECONDS.toMillis(requestNanos.get());
  }

  /**
   * Stops fetching and releases every block queued or partly assembled; answers still on their way
   * are released when they arrive. Safe from any thread, idempotent.
   */
  @Override
  public void close() {
    runner.execute(this::stop);
  }

  // ---- Runner tasks ----

  /** Runs {@code task} on the runner, then starts whatever waiting reads the budget allows. */
  private void onRunner(Runnable task) {
    runner.execute(
        () -> {
          task.run();
          dispatch();
        });
  }

  private void openNext() {
    while (!stopped && openPartitions < MAX_OPEN_PARTITIONS && nextToOpen < partitions.size()) {
      Partition p = partitions.get(nextToOpen++);
      openPartitions++;
      startNextLocation(p);
    }
  }

  /** Starts reading the partition's next location, or ends its metadata phase after the last. */
  private void startNextLocation(Partition p) {
    if (p.nextLocation == p.source.locations().size()) {
      p.metadataDone = true;
      openPartitions--;
      finishIfDone(p);
      openNext();
      return;
    }
    LocationRead r = new LocationRead(p, p.source.locations().get(p.nextLocation++));
    p.reads.add(r);
    p.activeLocations++;
    reading.add(r);
    startServer(r);
  }

  /** Reads the location from its current server, skipping servers this partition has read. */
  private void startServer(LocationRead r) {
    List<ServerAddress> chain = r.location.servers();
    if (r.server < chain.size()
        && r.partition.readServers.contains(chain.get(r.server).serverId())) {
      // That server was read completely for this partition: it holds this location's blocks too.
      finishLocation(r, true);
      return;
    }
    if (r.server == chain.size()) {
      finishLocation(r, false);
      return;
    }
    ServerAddress server = chain.get(r.server);
    LocationRead sharing = readerOf(r, server.serverId());
    if (sharing != null) {
      // Another location of this partition reads that server now: wait for it rather than read
      // the same blocks twice; once it is read, it holds this location's blocks too.
      r.waitingFor = sharing;
      sharing.followers.add(r);
      return;
    }
    int attempt = r.attempt;
    long started = System.nanoTime();
    CompletableFuture<TransportClient> connection;
    try {
      connection = clients.getClientAsync(server.host(), server.port());
    } catch (RuntimeException e) {
      connection = CompletableFuture.failedFuture(e);
    }
    connection.whenComplete(
        (client, error) ->
            onRunner(
                () -> {
                  requestNanos.addAndGet(System.nanoTime() - started);
                  if (stopped || attempt != r.attempt) {
                    return;
                  }
                  if (error != null) {
                    serverFailed(
                        r,
                        new IOException(
                            "cannot connect: " + Retries.unwrap(error).getMessage(),
                            Retries.unwrap(error)));
                    return;
                  }
                  r.client = client;
                  Partition p = r.partition;
                  send(
                      new Call<>(
                          r,
                          "the block counts",
                          () ->
                              new GetShuffleResultRequest(
                                  TransportClient.nextRequestId(),
                                  appId,
                                  shuffleId,
                                  p.id(),
                                  p.expected.attempts()),
                          GetShuffleResultResponse.class,
                          answer -> onBlockCounts(r, answer)));
                }));
  }

  /** Another location of {@code r}'s partition that is reading {@code serverId} now, if any. */
  private LocationRead readerOf(LocationRead r, String serverId) {
    for (LocationRead other : reading) {
      if (other != r
          && other.partition == r.partition
          && other.waitingFor == null
          && !other.finished
          && other.server < other.location.servers().size()
          && other.location.servers().get(other.server).serverId().equals(serverId)) {
        return other;
      }
    }
    return null;
  }

  /**
   * Lets locations that waited for another location's reading of a server go on: past that server
   * when it failed, otherwise to find it read.
   */
  private void resumeFollowers(List<LocationRead> followers, boolean serverFailed) {
    for (LocationRead f : followers) {
      f.waitingFor = null;
      if (serverFailed) {
        f.server++;
        f.attempt++;
      }
      startServer(f);
    }
  }

  private void onBlockCounts(LocationRead r, GetShuffleResultResponse answer) throws IOException {
    int[] counts = answer.blockCounts();
    long[] attempts = r.partition.expected.attempts();
    if (counts.length != attempts.length) {
      throw new IOException(
          "asked for the block counts of "
              + attempts.length
              + " map attempts, got "
              + counts.length);
    }
    for (int i = 0; i < counts.length; i++) {
      try {
        r.partition.expected.commit(attempts[i], counts[i]);
      } catch (IllegalStateException e) {
        failPartition(
            r.partition,
            new PartitionFetchException(
                r.partition.id(), describe(r.partition) + ": " + e.getMessage(), e));
        return;
      }
    }
    readMemory(r, FetchMemoryDataRequest.FROM_START);
  }

  private void readMemory(LocationRead r, long afterSequence) {
    int page = settings.maxRequestBytes();
    Partition p = r.partition;
    r.pendingReads++;
    waiting.add(
        new Waiting(
            r,
            page,
            () ->
                send(
                    new Call<>(
                            r,
                            "blocks in memory after sequence " + afterSequence,
                            () ->
                                new FetchMemoryDataRequest(
                                    TransportClient.nextRequestId(),
                                    appId,
                                    shuffleId,
                                    p.id(),
                                    afterSequence,
                                    page,
                                    p.expected.attempts()),
                            FetchMemoryDataResponse.class,
                            answer -> onMemoryPage(r, afterSequence, answer))
                        .reserving(page))));
  }

  /** The reservation of a page was a guess; from here on the page's actual bytes count. */
  private void onMemoryPage(LocationRead r, long afterSequence, FetchMemoryDataResponse page)
      throws IOException {
    boolean more = page.hasMore();
    long last = page.lastSequence();
    ByteBuf body = bodyOf(page);
    if (more && last <= afterSequence) {
      throw new IOException(
          "a memory page after sequence "
              + afterSequence
              + " says more blocks follow but ends at sequence "
              + last);
    }
    for (BlockDescriptor d : page.blocks()) {
      if (d.partitionId() != r.partition.id()) {
        throw new IOException(
            "a memory page of partition "
                + r.partition.id()
                + " holds a block of partition "
                + d.partitionId());
      }
    }
    reservedBytes += body.readableBytes();
    int at = body.readerIndex();
    for (BlockDescriptor d : page.blocks()) {
      int end = at + d.length();
      if (!offer(
          r,
          d.taskAttemptId(),
          d.sequence(),
          d.uncompressedLength(),
          d.crc32c(),
          body.retainedSlice(at, d.length()))) {
        reservedBytes -= body.writerIndex() - end;
        return;
      }
      at = end;
    }
    r.pendingReads--;
    if (more) {
      readMemory(r, last);
    } else if (r.partition.expected.missing() == null) {
      // Every block of every counted attempt has arrived: the index could list only blocks
      // already read, so a partition that never left the servers' memory costs no index round trip.
      indexRead(r);
    } else {
      readIndex(r);
    }
  }

  /**
   * Only after the last memory page: a block flushed meanwhile is then in the index. Read in pages
   * from servers that speak protocol 5 (an index of any size), whole from older ones.
   */
  private void readIndex(LocationRead r) {
    if (r.client.protocolVersion() >= FetchIndexPageRequest.SINCE_VERSION) {
      readIndexPage(r, 0);
      return;
    }
    send(
        new Call<>(
            r,
            "the index",
            () ->
                new FetchIndexRequest(
                    TransportClient.nextRequestId(), appId, shuffleId, r.partition.id()),
            FetchIndexResponse.class,
            answer -> {
              queueRanges(r, IndexEntry.decodeAll(bodyOf(answer)), answer.dataFileLength(), 0);
              indexRead(r);
            }));
  }

  /**
   * Queues the request for a page behind the reads already waiting, the previous page's included,
   * with its size reserved until it is answered: pages go no faster than their reads, so neither
   * the pages nor the reads planned from them pile up ahead of the budget.
   */
  private void readIndexPage(LocationRead r, int fromEntry) {
    int page = settings.maxRequestBytes();
    r.pendingReads++;
    waiting.add(
        new Waiting(
            r,
            page,
            () ->
                send(
                    new Call<>(
                            r,
                            "the index from entry " + fromEntry,
                            () ->
                                new FetchIndexPageRequest(
                                    TransportClient.nextRequestId(),
                                    appId,
                                    shuffleId,
                                    r.partition.id(),
                                    fromEntry,
                                    page),
                            FetchIndexPageResponse.class,
                            answer -> onIndexPage(r, fromEntry, answer))
                        .reserving(page))));
  }

  /** Queues the page's reads (they start as the budget allows), then the next page. */
  private void onIndexPage(LocationRead r, int fromEntry, FetchIndexPageResponse page)
      throws IOException {
    if (page.hasMore() && page.nextEntry() <= fromEntry) {
      throw new IOException(
          "an index page from entry "
              + fromEntry
              + " says more entries follow but names entry "
              + page.nextEntry()
              + " as the next");
    }
    queueRanges(
        r,
        IndexEntry.decodeAll(bodyOf(page)),
        page.dataFileLength(),
        RangePlanner.MAX_SKIPPED_BYTES);
    r.pendingReads--;
    if (page.hasMore()) {
      readIndexPage(r, page.nextEntry());
    } else {
      indexRead(r);
    }
  }

  /**
   * @param maxSkipped the most bytes between blocks a read may span ({@link RangePlanner#plan}):
   *     only within one page of the index, which is one file's
   */
  private void queueRanges(
      LocationRead r, List<IndexEntry> entries, long dataLength, int maxSkipped) {
    Partition p = r.partition;
    for (DataRange range :
        RangePlanner.plan(
            entries,
            dataLength,
            p.expected::wants,
            Math.min(settings.maxRequestBytes(), readLimit(r)),
            maxSkipped)) {
      RangeAssembler assembler = new RangeAssembler(range, allocator);
      r.pendingReads++;
      waiting.add(
          new Waiting(
              r,
              range.length(),
              () -> {
                r.ranges.add(assembler);
                reservedBytes += range.length();
                assembler.reserve(range.length());
                readRange(r, assembler);
              }));
    }
  }

  /** The whole index was read and its reads queued. */
  private void indexRead(LocationRead r) {
    r.planned = true;
    finishIfRead(r);
    if (!r.advanced) {
      r.advanced = true;
      startNextLocation(r.partition);
    }
  }

  private void readRange(LocationRead r, RangeAssembler assembler) {
    if (assembler.complete()) {
      deliver(r, assembler, assembler.takeCompleted());
      return;
    }
    int length = Math.min(assembler.remaining(), readLimit(r));
    send(
        new Call<>(
            r,
            "data [" + assembler.nextOffset() + ", +" + length + ")",
            () ->
                new FetchDataRequest(
                    TransportClient.nextRequestId(),
                    appId,
                    shuffleId,
                    r.partition.id(),
                    assembler.nextOffset(),
                    length),
            FetchDataResponse.class,
            answer -> deliver(r, assembler, assembler.append(bodyOf(answer).retain()))));
  }

  /**
   * The most bytes one data read from the location's server may ask for: a request's size, and what
   * the server's frame (told at the handshake, from protocol 5) holds. A longer range, even a
   * single block, is read in several answers, as a short answer is.
   */
  private int readLimit(LocationRead r) {
    int frame = r.client.serverMaxFrameSize();
    int serverLimit = frame == 0 ? Integer.MAX_VALUE : Math.max(1, frame - DATA_ANSWER_OVERHEAD);
    // The request size is within this client's own frame too (FetchSettings.of).
    return Math.min(serverLimit, settings.maxRequestBytes());
  }

  /** Offers the blocks cut so far; reads on where a short answer ended, or closes the range. */
  private void deliver(
      LocationRead r, RangeAssembler assembler, List<RangeAssembler.Piece> pieces) {
    long dropped = assembler.takeDroppedBytes();
    assembler.settle(dropped);
    reservedBytes -= dropped;
    for (int i = 0; i < pieces.size(); i++) {
      RangeAssembler.Piece piece = pieces.get(i);
      IndexEntry b = piece.block();
      assembler.settle(b.length());
      if (!offer(
          r, b.taskAttemptId(), b.sequence(), b.uncompressedLength(), b.crc32c(), piece.data())) {
        for (int j = i + 1; j < pieces.size(); j++) {
          pieces.get(j).data().release();
        }
        return;
      }
    }
    if (!assembler.complete()) {
      readRange(r, assembler);
      return;
    }
    assembler.close();
    r.ranges.remove(assembler);
    r.pendingReads--;
    finishIfRead(r);
  }

  /**
   * Queues a block its partition still needs after checking its CRC32C, or releases it. Takes over
   * {@code data} and the bytes reserved for it. Returns false when the block was corrupt: the
   * location is then being read from its next server.
   */
  private boolean offer(
      LocationRead r,
      long taskAttemptId,
      int sequence,
      int uncompressedLength,
      int crc32c,
      ByteBuf data) {
    Partition p = r.partition;
    if (!p.expected.wants(taskAttemptId, sequence)) {
      reservedBytes -= data.readableBytes();
      data.release();
      return true;
    }
    int actual = Crc32c.of(data);
    if (actual != crc32c) {
      reservedBytes -= data.readableBytes();
      data.release();
      serverFailed(
          r,
          new IOException(
              String.format(
                  "block %d of map attempt %d is corrupt: "
                      + "the writer computed CRC32C %08x, the bytes read give %08x",
                  sequence, taskAttemptId, crc32c, actual)));
      return false;
    }
    p.expected.accept(taskAttemptId, sequence);
    ready.add(new FetchedBlock(p.id(), taskAttemptId, sequence, uncompressedLength, data));
    return true;
  }

  private void finishIfRead(LocationRead r) {
    if (r.planned && r.pendingReads == 0 && !r.finished) {
      finishLocation(r, true);
    }
  }

  private void finishLocation(LocationRead r, boolean read) {
    r.finished = true;
    reading.remove(r);
    Partition p = r.partition;
    if (read) {
      p.readServers.add(
          r.location.servers().get(Math.min(r.server, r.location.servers().size() - 1)).serverId());
    } else {
      p.unreadable.add(r.location.toString());
    }
    p.activeLocations--;
    List<LocationRead> followers = List.copyOf(r.followers);
    r.followers.clear();
    resumeFollowers(followers, !read);
    if (!r.advanced) {
      r.advanced = true;
      startNextLocation(p);
    }
    finishIfDone(p);
  }

  private void finishIfDone(Partition p) {
    if (!p.metadataDone || p.activeLocations > 0 || p.done) {
      return;
    }
    String missing = p.expected.missing();
    if (missing != null && readNextServers(p, missing)) {
      return;
    }
    if (missing != null) {
      failPartition(
          p,
          new PartitionFetchException(
              p.id(),
              describe(p)
                  + ": "
                  + missing
                  + (p.unreadable.isEmpty()
                      ? ""
                      : "; no server of "
                          + String.join(", ", p.unreadable)
                          + " could be read ("
                          + String.join("; ", p.serverFailures)
                          + ")"),
              null));
      return;
    }
    p.done = true;
    if (!p.unreadable.isEmpty()) {
      LOG.info(
          "{} is complete without {}, which could not be read",
          describe(p),
          String.join(", ", p.unreadable));
    }
    if (++completePartitions == partitions.size()) {
      ready.add(END);
    }
  }

  /**
   * Blocks are missing although every location was read: a server may have answered without the
   * blocks it lost (a failed disk) while their replica holds them. Reads every location whose chain
   * has a server not yet tried once more, from that server; false when none has.
   */
  private boolean readNextServers(Partition p, String missing) {
    List<LocationRead> again = new ArrayList<>();
    for (LocationRead r : p.reads) {
      if (r.finished && r.server + 1 < r.location.servers().size()) {
        again.add(r);
      }
    }
    if (again.isEmpty()) {
      return false;
    }
    LOG.info("{}: {}; reading the replicas", describe(p), missing);
    // Every read counts as active before any starts: one that ends at once must not find the
    // partition finished while the others have not begun.
    int[] attempts = new int[again.size()];
    for (int i = 0; i < again.size(); i++) {
      LocationRead r = again.get(i);
      r.finished = false;
      r.server++;
      r.attempt++;
      counters.replicaRead();
      r.client = null;
      r.pendingReads = 0;
      r.planned = false;
      attempts[i] = r.attempt;
      p.activeLocations++;
      reading.add(r);
    }
    for (int i = 0; i < again.size(); i++) {
      LocationRead r = again.get(i);
      if (!r.finished && r.attempt == attempts[i] && r.waitingFor == null) {
        startServer(r);
      }
    }
    return true;
  }

  /**
   * Gives up on the location's current server: drops what was asked of it and reads the location
   * from the next server of its chain.
   */
  private void serverFailed(LocationRead r, IOException cause) {
    if (stopped || r.finished) {
      return;
    }
    ServerAddress server = r.location.servers().get(r.server);
    String reason = "server " + server + ": " + cause.getMessage();
    LOG.warn(
        "Reading {} from {} failed; {}",
        describe(r.partition),
        reason,
        r.server + 1 < r.location.servers().size() ? "reading its replica" : "no replica left");
    r.partition.serverFailures.add(reason);
    abandon(r);
    List<LocationRead> followers = List.copyOf(r.followers);
    r.followers.clear();
    if (r.server + 1 < r.location.servers().size()) {
      counters.replicaRead();
    }
    r.server++;
    r.attempt++;
    r.client = null;
    r.pendingReads = 0;
    r.planned = false;
    startServer(r);
    resumeFollowers(followers, true);
  }

  /** Returns the budget held by the location's outstanding work; late answers are released. */
  private void abandon(LocationRead r) {
    waiting.removeIf(w -> w.owner == r);
    for (Call<?> call : r.calls) {
      reservedBytes -= call.reserved;
      call.reserved = 0;
      call.stale = true;
    }
    r.calls.clear();
    for (RangeAssembler assembler : r.ranges) {
      reservedBytes -= assembler.unsettled();
      assembler.close();
    }
    r.ranges.clear();
  }

  /** Starts the reads at the head of the queue while the budget allows; the first always goes. */
  private void dispatch() {
    while (!stopped && !waiting.isEmpty()) {
      Waiting next = waiting.peek();
      if (reservedBytes > 0 && reservedBytes + next.bytes() > settings.maxBytesInFlight()) {
        return;
      }
      waiting.poll();
      next.start().run();
    }
  }

  private <R extends ResponseMessage> void send(Call<R> call) {
    LocationRead r = call.read;
    r.calls.add(call);
    long started = System.nanoTime();
    CompletableFuture<R> answer;
    try {
      answer = r.client.request(call.request.get(), call.type);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (response, error) ->
            onRunner(
                () -> {
                  requestNanos.addAndGet(System.nanoTime() - started);
                  onAnswer(call, response, error);
                }));
  }

  private <R extends ResponseMessage> void onAnswer(Call<R> call, R response, Throwable error) {
    LocationRead r = call.read;
    if (stopped || call.stale) {
      ReferenceCountUtil.release(response);
      return;
    }
    r.calls.remove(call);
    if (error == null) {
      reservedBytes -= call.reserved;
      call.reserved = 0;
      try {
        call.handler.handle(response);
      } catch (IOException | RuntimeException e) {
        serverFailed(r, e instanceof IOException io ? io : new IOException(e.toString(), e));
      } finally {
        ReferenceCountUtil.release(response);
      }
      return;
    }
    Throwable cause = Retries.unwrap(error);
    // A retriable status is retried with back-off; a timeout once (see Retries).
    boolean retry =
        Retries.isRetriableStatus(cause)
            ? call.retries < settings.backoff().maxRetries()
            : Retries.isTimeout(cause) && call.timeouts++ == 0;
    if (!retry) {
      reservedBytes -= call.reserved;
      call.reserved = 0;
      serverFailed(
          r,
          new IOException(
              "reading "
                  + call.what
                  + " failed"
                  + (call.retries > 0 ? " after " + call.retries + " retries" : "")
                  + ": "
                  + cause,
              cause));
      return;
    }
    long wait = settings.backoff().delayMillis(call.retries++);
    counters.fetchRetried();
    LOG.debug(
        "Reading {} of {} failed ({}); retry {} in {} ms",
        call.what,
        describe(r.partition),
        cause,
        call.retries,
        wait);
    r.calls.add(call);
    try {
      timer.schedule(
          () ->
              onRunner(
                  () -> {
                    if (!stopped && !call.stale) {
                      r.calls.remove(call);
                      send(call);
                    }
                  }),
          wait,
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      r.calls.remove(call);
      reservedBytes -= call.reserved;
      call.reserved = 0;
      failPartition(
          r.partition,
          new PartitionFetchException(
              r.partition.id(),
              "cannot retry reading " + call.what + ": the client is shutting down",
              cause));
    }
  }

  private void failPartition(Partition p, PartitionFetchException e) {
    if (stopped) {
      return;
    }
    LOG.warn("Fetch failed: {}", e.getMessage());
    stop();
    ready.addFirst(e);
  }

  private void stop() {
    stopped = true;
    waiting.clear();
    for (LocationRead r : List.copyOf(reading)) {
      abandon(r);
    }
    reading.clear();
    Object item;
    while ((item = ready.poll()) != null) {
      if (item instanceof FetchedBlock block) {
        block.release();
      }
    }
  }

  /**
   * The consumer has waited long for a block: says what the reader waits for, so that a slow or
   * silent server (or a bug here) can be told apart in the executor's log.
   */
  private void reportStall() {
    if (stopped) {
      return;
    }
    List<String> waits = new ArrayList<>();
    int requests = 0;
    for (LocationRead r : reading) {
      // Guarded like the rest of the reader: a diagnostic must never fail the fetch.
      ServerAddress server =
          r.location.servers().get(Math.min(r.server, r.location.servers().size() - 1));
      for (Call<?> call : r.calls) {
        requests++;
        waits.add(
            describe(r.partition)
                + " from "
                + server
                + ": "
                + call.what
                + (call.retries > 0 ? " (retry " + call.retries + ")" : ""));
      }
      if (r.waitingFor != null) {
        waits.add(describe(r.partition) + " waits for another location's read of the same server");
      } else if (r.calls.isEmpty()) {
        waits.add(
            describe(r.partition)
                + " from "
                + server
                + ": nothing asked ("
                + r.pendingReads
                + " reads pending, index "
                + (r.planned ? "read" : "not read")
                + ")");
      }
    }
    LOG.warn(
        "No shuffle block for {} s: {} of {} partitions complete, {} bytes of {} in flight, "
            + "{} reads waiting for that budget, {} requests outstanding; waiting for: {}",
        TimeUnit.NANOSECONDS.toSeconds(STALL_REPORT_NANOS),
        completePartitions,
        partitions.size(),
        reservedBytes,
        settings.maxBytesInFlight(),
        waiting.size(),
        requests,
        waits.isEmpty() ? "nothing" : String.join("; ", waits));
  }

  /** A bug in a runner task: fail the fetch rather than leave the consumer waiting. */
  private void onUnexpected(Throwable t) {
    LOG.error("Unexpected error while fetching shuffle {}", shuffleId, t);
    if (partitions.isEmpty()) {
      return;
    }
    Partition blamed = partitions.get(partitions.size() - 1);
    for (Partition p : partitions) {
      if (!p.done) {
        blamed = p;
        break;
      }
    }
    failPartition(
        blamed,
        new PartitionFetchException(
            blamed.id(), "unexpected error in the fetch pipeline: " + t, t));
  }

  private String describe(Partition p) {
    return "partition " + p.id() + " of shuffle " + shuffleId;
  }

  private static ByteBuf bodyOf(AbstractBodyMessage message) throws IOException {
    ManagedBuffer body = message.body();
    if (body instanceof NettyManagedBuffer netty) {
      return netty.byteBuf();
    }
    throw new IOException("unexpected body " + body + " in " + message);
  }

  private static final class Partition {
    final PartitionSource source;
    final ExpectedBlocks expected;

    /** Servers read completely for this partition: they hold every block of it they have. */
    final Set<String> readServers = new HashSet<>();

    final List<String> unreadable = new ArrayList<>();
    final List<String> serverFailures = new ArrayList<>();

    /** Its locations' reads, in the order they started. */
    final List<LocationRead> reads = new ArrayList<>();

    int nextLocation;
    int activeLocations;

    /** Every location's metadata was read (or given up on). */
    boolean metadataDone;

    boolean done;

    Partition(PartitionSource source) {
      this.source = source;
      this.expected = new ExpectedBlocks(source.attempts());
    }

    int id() {
      return source.partition();
    }
  }

  /** The reading of one location of a partition, from one of its chain's servers at a time. */
  private static final class LocationRead {
    final Partition partition;
    final PartitionLocation location;
    final Set<Call<?>> calls = new HashSet<>();
    final Set<RangeAssembler> ranges = new HashSet<>();

    /** Other locations of the partition waiting for this one's current server to be read. */
    final List<LocationRead> followers = new ArrayList<>();

    /** The location whose reading of this one's current server this one waits for, or null. */
    LocationRead waitingFor;

    /** Index of the server in the chain being read. */
    int server;

    /** Counts the servers tried, so that a late connection to an abandoned one is ignored. */
    int attempt;

    TransportClient client;

    /** Memory pages and data ranges queued or in flight. */
    int pendingReads;

    /** The index was read and its ranges queued. */
    boolean planned;

    /** The partition moved on to its next location after this one's metadata. */
    boolean advanced;

    boolean finished;

    LocationRead(Partition partition, PartitionLocation location) {
      this.partition = partition;
      this.location = location;
    }
  }

  /** A read that waits for room in the budget. */
  private record Waiting(LocationRead owner, long bytes, Runnable start) {}

  @FunctionalInterface
  private interface AnswerHandler<R> {
    /** Handles a successful answer; the caller releases it afterwards. */
    void handle(R answer) throws IOException;
  }

  /** One request, re-created with a fresh id on each retry. */
  private final class Call<R extends ResponseMessage> {
    final LocationRead read;
    final String what;
    final Supplier<RequestMessage> request;
    final Class<R> type;
    final AnswerHandler<R> handler;

    /** Budget held until the answer arrives. */
    long reserved;

    boolean stale;
    int retries;
    int timeouts;

    Call(
        LocationRead read,
        String what,
        Supplier<RequestMessage> request,
        Class<R> type,
        AnswerHandler<R> handler) {
      this.read = read;
      this.what = what;
      this.request = request;
      this.type = type;
      this.handler = handler;
    }

    Call<R> reserving(long bytes) {
      reserved = bytes;
      reservedBytes += bytes;
      return this;
    }
  }
}
