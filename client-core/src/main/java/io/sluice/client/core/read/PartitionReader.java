package io.sluice.client.core.read;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.client.core.TransferCounters;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.NetworkErrors;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportOptions;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one partition reader of the shuffle protocol: reads a reduce task's partitions from the
 * servers in the background and hands the blocks it keeps to the consuming thread through a queue.
 * The Spark reader, the benchmarks and the tests all read through it.
 *
 * <p>A partition may have several locations (see {@link PartitionLocation}), each a chain of
 * servers holding the same blocks. Every location is read, one after another; within a location the
 * first server that answers is read by a {@link LocationReader}, in the phases the server's read
 * semantics require (block counts, memory pages, index, data ranges), starting at the server its
 * {@link ReadOrder} names (the primary, unless the task is a later attempt or the primary was found
 * slow). This class runs those readers: it opens partitions and their locations, holds the budget
 * of bytes in flight and the reads waiting for it, sends and retries their requests, and moves a
 * location along its chain. When a server fails (a refused or broken connection, an answer that
 * retries did not cure, a block whose CRC32C does not match, a server that no longer knows the
 * shuffle) the location is read again from the chain's next server (around it); blocks already kept
 * are not kept twice. A location none of whose servers can be read is skipped: once every location
 * was read, the partition is complete when every counted attempt's commit was found and all its
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

  /**
   * Partitions whose metadata (commit counts, memory pages, index) is read at the same time. Their
   * pages are within the budget of bytes in flight too, so this matters for small partitions: a
   * reduce task that adaptive execution gave dozens of them reads them in a few round trips.
   */
  private static final int MAX_OPEN_PARTITIONS = 32;

  private static final long WAIT_SLICE_MILLIS = 100;

  /** How often a task waiting for blocks has the reader look for servers gone silent. */
  private static final long SILENCE_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  /** How long the consumer waits for a block before the reader logs what it is waiting for. */
  private static final long STALL_REPORT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static final Object END = new Object();

  /**
   * One partition to read.
   *
   * @param partition the partition id
   * @param locations every location the partition had, oldest first
   * @param attempts the map attempts the reader counts that wrote bytes to the partition
   * @param expectedBytes about how many bytes those attempts wrote to it (Spark's map statuses), or
   *     {@link #UNKNOWN_SIZE}: sizes the first memory page's request, nothing else
   */
  public record PartitionSource(
      int partition, List<PartitionLocation> locations, long[] attempts, long expectedBytes) {
    public static final long UNKNOWN_SIZE = -1;

    public PartitionSource {
      locations = List.copyOf(locations);
      attempts = attempts.clone();
    }

    public PartitionSource(int partition, List<PartitionLocation> locations, long[] attempts) {
      this(partition, locations, attempts, UNKNOWN_SIZE);
    }
  }

  private final String appId;
  private final int shuffleId;
  private final FetchSettings settings;
  private final Connections clients;
  private final ByteBufAllocator allocator;
  private final ScheduledExecutorService timer;
  private final TransferCounters counters;
  private final ReadOrder order;
  private final List<PartitionRead> partitions = new ArrayList<>();
  private final SerialRunner runner = new SerialRunner(this::onUnexpected);
  private final ReaderPipeline pipeline = new ReaderPipeline();
  private final LinkedBlockingDeque<Object> ready = new LinkedBlockingDeque<>();
  private final AtomicLong requestNanos = new AtomicLong();

  // Runner state: touched by runner tasks only.
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private final Set<LocationReader> reading = new HashSet<>();
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
    this(
        appId,
        shuffleId,
        sources,
        settings,
        clients,
        allocator,
        timer,
        TransferCounters.NONE,
        ReadOrder.PRIMARY_FIRST);
  }

  /**
   * @param counters told of every request sent again and every move to the next server of a chain
   *     after a server could not be read
   * @param order which server of each location's chain to read first
   */
  public PartitionReader(
      String appId,
      int shuffleId,
      List<PartitionSource> sources,
      FetchSettings settings,
      Connections clients,
      ByteBufAllocator allocator,
      ScheduledExecutorService timer,
      TransferCounters counters,
      ReadOrder order) {
    this.counters = counters;
    this.order = order;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.settings = settings;
    this.clients = clients;
    this.allocator = allocator;
    this.timer = timer;
    for (PartitionSource source : sources) {
      partitions.add(new PartitionRead(source));
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
    long silenceCheckedAt = waitingSince;
    while ((item = ready.poll(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) == null) {
      whileWaiting.run();
      long now = System.nanoTime();
      if (now - silenceCheckedAt >= SILENCE_CHECK_NANOS) {
        silenceCheckedAt = now;
        // onRunner: leaving a server frees its reads' budget, which reads queued behind it (of
        // another location of the partition, say) may then take at once.
        onRunner(this::leaveSilentServers);
      }
      if (now - waitingSince >= STALL_REPORT_NANOS) {
        waitingSince = now;
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
      PartitionRead p = partitions.get(nextToOpen++);
      openPartitions++;
      startNextLocation(p);
    }
  }

  /** Starts reading the partition's next location, or ends its metadata phase after the last. */
  private void startNextLocation(PartitionRead p) {
    if (p.nextLocation == p.source.locations().size()) {
      p.metadataDone = true;
      openPartitions--;
      finishIfDone(p);
      openNext();
      return;
    }
    PartitionLocation location = p.source.locations().get(p.nextLocation++);
    LocationReader r =
        new LocationReader(p, location, order.firstServer(location.servers()), pipeline);
    p.reads.add(r);
    p.activeLocations++;
    reading.add(r);
    startServer(r);
  }

  /** Reads the location from its current server, skipping servers this partition has read. */
  private void startServer(LocationReader r) {
    if (!r.triedAll() && r.partition.readServers.contains(r.currentServer().serverId())) {
      // That server was read completely for this partition: it holds this location's blocks too.
      finishLocation(r, true);
      return;
    }
    if (r.triedAll()) {
      finishLocation(r, false);
      return;
    }
    ServerAddress server = r.currentServer();
    LocationReader sharing = readerOf(r, server.serverId());
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
                  r.connected(client);
                }));
  }

  /** Another location of {@code r}'s partition that is reading {@code serverId} now, if any. */
  private LocationReader readerOf(LocationReader r, String serverId) {
    for (LocationReader other : reading) {
      if (other != r
          && other.partition == r.partition
          && other.waitingFor == null
          && !other.finished
          && !other.triedAll()
          && other.currentServer().serverId().equals(serverId)) {
        return other;
      }
    }
    return null;
  }

  /**
   * Lets locations that waited for another location's reading of a server go on: past that server
   * when it failed, otherwise to find it read.
   */
  private void resumeFollowers(List<LocationReader> followers, boolean serverFailed) {
    for (LocationReader f : followers) {
      f.waitingFor = null;
      if (serverFailed) {
        f.moveToNextServer();
      }
      startServer(f);
    }
  }

  private void finishLocation(LocationReader r, boolean read) {
    r.finished = true;
    reading.remove(r);
    PartitionRead p = r.partition;
    if (read) {
      p.readServers.add(r.currentServer().serverId());
    } else {
      p.unreadable.add(r.location.toString());
    }
    p.activeLocations--;
    List<LocationReader> followers = List.copyOf(r.followers);
    r.followers.clear();
    resumeFollowers(followers, !read);
    if (!r.advanced) {
      r.advanced = true;
      startNextLocation(p);
    }
    finishIfDone(p);
  }

  private void finishIfDone(PartitionRead p) {
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
  private boolean readNextServers(PartitionRead p, String missing) {
    List<LocationReader> again = new ArrayList<>();
    for (LocationReader r : p.reads) {
      if (r.finished && r.hasUntriedServer()) {
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
      LocationReader r = again.get(i);
      r.finished = false;
      r.moveToNextServer();
      counters.replicaRead();
      attempts[i] = r.attempt;
      p.activeLocations++;
      reading.add(r);
    }
    for (int i = 0; i < again.size(); i++) {
      LocationReader r = again.get(i);
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
  private void serverFailed(LocationReader r, IOException cause) {
    if (stopped || r.finished) {
      return;
    }
    ServerAddress server = r.currentServer();
    String reason = "server " + server + ": " + cause.getMessage();
    LOG.warn(
        "Reading {} from {}; {}",
        describe(r.partition),
        reason,
        r.hasUntriedServer() ? "reading its replica" : "no replica left");
    r.partition.serverFailures.add(reason);
    abandon(r);
    List<LocationReader> followers = List.copyOf(r.followers);
    r.followers.clear();
    if (r.hasUntriedServer()) {
      counters.replicaRead();
    }
    r.moveToNextServer();
    startServer(r);
    resumeFollowers(followers, true);
  }

  /**
   * Reads each location whose server went silent ({@link TransportClient#isSilent}: requests
   * outstanding and not a byte from it for half of {@code transport.liveness.timeout}) from the
   * next server of its chain, where it has one. The transport then probes the server and gives it
   * up only after the other half; a reader with a replica need not wait for that verdict, nor stay
   * with a server that answers the probe but not its reads (a hung disk). What the silent server
   * sends later is dropped, as after any failure.
   */
  private void leaveSilentServers() {
    if (stopped) {
      return;
    }
    for (LocationReader r : List.copyOf(reading)) {
      if (!r.finished
          && r.client != null
          && !r.calls.isEmpty()
          && r.hasUntriedServer()
          && r.client.isSilent()) {
        serverFailed(
            r,
            new IOException(
                "it sent nothing for half of "
                    + TransportOptions.LIVENESS_TIMEOUT.key()
                    + " while reads were outstanding"));
      }
    }
  }

  /** Returns the budget held by the location's outstanding work; late answers are released. */
  private void abandon(LocationReader r) {
    waiting.removeIf(w -> w.owner == r);
    for (ReadCall<?> call : r.calls) {
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
    reservedBytes -= r.releaseEarlyPage();
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

  private <R extends ResponseMessage> void transmit(ReadCall<R> call) {
    LocationReader r = call.read;
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

  private <R extends ResponseMessage> void onAnswer(ReadCall<R> call, R response, Throwable error) {
    LocationReader r = call.read;
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
                  + NetworkErrors.describe(cause),
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
                      transmit(call);
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

  private void failPartition(PartitionRead p, PartitionFetchException e) {
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
    for (LocationReader r : List.copyOf(reading)) {
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
    for (LocationReader r : reading) {
      // Guarded like the rest of the reader: a diagnostic must never fail the fetch.
      ServerAddress server = r.currentServer();
      for (ReadCall<?> call : r.calls) {
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
    PartitionRead blamed = partitions.get(partitions.size() - 1);
    for (PartitionRead p : partitions) {
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

  private String describe(PartitionRead p) {
    return "partition " + p.id() + " of shuffle " + shuffleId;
  }

  /** A read that waits for room in the budget. */
  private record Waiting(LocationReader owner, long bytes, Runnable start) {}

  /** What the locations' readers ask of this reader, on the runner. */
  private final class ReaderPipeline implements LocationReader.Pipeline {
    @Override
    public String appId() {
      return appId;
    }

    @Override
    public int shuffleId() {
      return shuffleId;
    }

    @Override
    public FetchSettings settings() {
      return settings;
    }

    @Override
    public ByteBufAllocator allocator() {
      return allocator;
    }

    @Override
    public void whenBudgetAllows(LocationReader owner, long bytes, Runnable start) {
      waiting.add(new Waiting(owner, bytes, start));
    }

    @Override
    public <R extends ResponseMessage> void send(ReadCall<R> call) {
      reservedBytes += call.reserved;
      transmit(call);
    }

    @Override
    public void hold(long bytes) {
      reservedBytes += bytes;
    }

    @Override
    public void ready(FetchedBlock block) {
      ready.add(block);
    }

    @Override
    public void serverFailed(LocationReader reader, IOException cause) {
      PartitionReader.this.serverFailed(reader, cause);
    }

    @Override
    public void metadataRead(LocationReader reader) {
      if (!reader.advanced) {
        reader.advanced = true;
        startNextLocation(reader.partition);
      }
    }

    @Override
    public void locationRead(LocationReader reader) {
      finishLocation(reader, true);
    }

    @Override
    public void failPartition(PartitionRead partition, PartitionFetchException e) {
      PartitionReader.this.failPartition(partition, e);
    }

    @Override
    public String describe(PartitionRead partition) {
      return PartitionReader.this.describe(partition);
    }
  }
}
