package io.sluice.client.core.push;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.sluice.client.core.TransferCounters;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.NetworkErrors;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestTimeoutException;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one push client of the shuffle protocol: pushes one map attempt's blocks and commits them.
 * The Spark writer, the benchmarks and the tests all push through it.
 *
 * <p>Each block gets the next sequence number of its partition and its CRC32C, and joins the batch
 * bound for its partition's chain of servers (its primary and replicas); a batch is pushed when it
 * reaches {@link PushSettings#batchSize()}, asynchronously. The attempt holds at most {@link
 * PushSettings#maxBytesBuffered()} of block buffers (counted by their capacity, the memory they
 * take, not only the bytes they hold), batched or pushed and not yet acknowledged, however many
 * servers it writes to: when it would pass that, the largest batch goes out, and when nothing is
 * left to send the caller waits for acknowledgements. A map task therefore waits only for room and,
 * at the end, in {@link #finish()}. Every wait ends: each push either is answered, or fails after
 * {@code transport.request.timeout} (or sooner, when its server stops answering altogether: with
 * replicas, pushes and commits leave a server as soon as it is in doubt, {@link
 * TransportClient#requestOrLeave}), and a killed task stops waiting for room or in {@link
 * #finish()} at once.
 *
 * <p>A push answered NO_BUFFER or BUSY is sent again to the same server after a back-off. A push
 * whose location cannot take it (refused or broken connection, no answer twice, a server that
 * restarted, is draining or could not reach its replica) is not retried there: the pusher asks its
 * {@link PartitionLocator} for new locations and sends the same blocks there. Anything else fails
 * the attempt at its next call.
 *
 * <p>A server that takes pushes much more slowly than the others ({@link PushPace}, shared by the
 * JVM's writers) has its partitions moved too, once the pace of the pushes shows it: the blocks it
 * took stay there, and blocks batched later go to the new locations.
 *
 * <p>{@link #commit(int)} then tells every server of every location that took blocks of a partition
 * how many blocks the attempt wrote to it; {@link #finishAndCommit(int)} does both, sending the
 * commits without waiting for the last pushes' acknowledgements. An early commit may so reach a
 * server that then refuses the push (a draining one): it records counts for blocks it never gets,
 * which no reader is misled by (the attempt then commits where the blocks went too) but which take
 * room in that server's commit bookkeeping ({@code heap.commit.pairs}) until the shuffle ends.
 *
 * <p>Threads: {@link #add}, {@link #finish}, {@link #finishAndCommit}, {@link #commit} and {@link
 * #abort} belong to the attempt's thread; acknowledgements arrive on event loops. State is guarded
 * by this object. Buffers: the pusher owns every block handed to {@link #add} and releases it once
 * acknowledged, or when the attempt fails or aborts.
 */
public final class MapOutputPusher {
  private static final Logger LOG = LoggerFactory.getLogger(MapOutputPusher.class);

  /** How often a waiting attempt looks whether its task was killed. */
  private static final long WAIT_SLICE_MILLIS = 100;

  private final Connections clients;
  private final ByteBufAllocator allocator;
  private final ScheduledExecutorService timer;
  private final PushSettings settings;
  private final PartitionLocator locator;
  private final String appId;
  private final int shuffleId;
  private final long taskAttemptId;
  private final BooleanSupplier killed;
  private final TransferCounters counters;
  private final PushPace pace;

  /** Servers found slow that this attempt moved partitions from; guarded by this. */
  private final Set<List<String>> movedFromSlow = new HashSet<>();

  private final int[] blockCounts;

  /** The first location of each partition that acknowledged blocks; later ones in moreLocations. */
  private final PartitionLocation[] usedLocations;

  private final Map<Integer, Set<PartitionLocation>> moreLocations = new HashMap<>();

  /** The location each partition's first block was batched for; guarded by this. */
  private final PartitionLocation[] firstSent;

  /**
   * Some partition's blocks were batched for two locations (it moved meanwhile); guarded by this.
   */
  private boolean batchedForMovedLocations;

  // Guarded by this.
  private final Map<List<ServerAddress>, Batch> batches = new LinkedHashMap<>();
  private long buffered;
  private int outstanding;
  private Throwable failure;
  private long waitNanos;

  public MapOutputPusher(
      Connections clients,
      ByteBufAllocator allocator,
      ScheduledExecutorService timer,
      PushSettings settings,
      PartitionLocator locator,
      String appId,
      int shuffleId,
      int numPartitions,
      long taskAttemptId) {
    this(
        clients,
        allocator,
        timer,
        settings,
        locator,
        appId,
        shuffleId,
        numPartitions,
        taskAttemptId,
        () -> false);
  }

  /**
   * @param killed whether the attempt's task was killed: the attempt then stops waiting for room or
   *     acknowledgements within a tenth of a second ({@link InterruptedIOException})
   */
  public MapOutputPusher(
      Connections clients,
      ByteBufAllocator allocator,
      ScheduledExecutorService timer,
      PushSettings settings,
      PartitionLocator locator,
      String appId,
      int shuffleId,
      int numPartitions,
      long taskAttemptId,
      BooleanSupplier killed) {
    this(
        clients,
        allocator,
        timer,
        settings,
        locator,
        appId,
        shuffleId,
        numPartitions,
        taskAttemptId,
        killed,
        TransferCounters.NONE,
        PushPace.OFF);
  }

  /**
   * @param counters told of every push and commit sent again
   * @param pace told of every push, and asked after each acknowledgement which servers are slow:
   *     partitions located on one are moved elsewhere
   */
  public MapOutputPusher(
      Connections clients,
      ByteBufAllocator allocator,
      ScheduledExecutorService timer,
      PushSettings settings,
      PartitionLocator locator,
      String appId,
      int shuffleId,
      int numPartitions,
      long taskAttemptId,
      BooleanSupplier killed,
      TransferCounters counters,
      PushPace pace) {
    this.pace = pace;
    this.killed = killed;
    this.counters = counters;
    this.clients = clients;
    this.allocator = allocator;
    this.timer = timer;
    this.settings = settings;
    this.locator = locator;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.taskAttemptId = taskAttemptId;
    this.blockCounts = new int[numPartitions];
    this.usedLocations = new PartitionLocation[numPartitions];
    this.firstSent = new PartitionLocation[numPartitions];
  }

  /**
   * Queues one block of {@code partition}: its compressed bytes and their uncompressed length.
   * Takes ownership of {@code data} on every path. Waits while the attempt holds too many bytes.
   *
   * @throws IOException if an earlier push failed for good, or when interrupted while waiting
   */
  public void add(int partition, ByteBuf data, int uncompressedLength) throws IOException {
    int size = data.readableBytes();
    int held = data.capacity();
    BlockDescriptor block;
    try {
      block =
          new BlockDescriptor(
              partition,
              taskAttemptId,
              blockCounts[partition],
              size,
              uncompressedLength,
              Crc32c.of(data));
    } catch (RuntimeException e) {
      data.release();
      throw e;
    }
    synchronized (this) {
      try {
        awaitRoom(held);
        checkFailure();
      } catch (IOException | RuntimeException e) {
        data.release();
        throw e;
      }
      blockCounts[partition]++;
      buffered += held;
      PartitionLocation location = locator.location(partition);
      if (firstSent[partition] == null) {
        firstSent[partition] = location;
      } else if (!firstSent[partition].equals(location)) {
        batchedForMovedLocations = true;
      }
      Batch batch = batches.computeIfAbsent(location.servers(), k -> new Batch(location.servers()));
      batch.add(block, data, location);
      if (batch.bytes >= settings.batchSize()) {
        send(batch);
      }
    }
  }

  /** Sends what is queued and waits until every block is acknowledged. */
  public void finish() throws IOException {
    synchronized (this) {
      for (Batch batch : List.copyOf(batches.values())) {
        send(batch);
      }
      long start = System.nanoTime();
      try {
        while (outstanding > 0 && failure == null) {
          awaitAcknowledgement();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for pushes to be acknowledged");
      } finally {
        waitNanos += System.nanoTime() - start;
      }
      checkFailure();
    }
  }

  /**
   * Reports the attempt's blocks to every server of every location that took some: for each
   * partition written, the number of blocks. Call after {@link #finish()}. A reader takes the
   * counts from the first server of a location's chain that answers it, so every server that can
   * still be read must hold the commit: one may miss it only when it is gone for readers too (its
   * connection fails, or it restarted or is stopping and so holds nothing of the shuffle), or, with
   * other copies, when it was in doubt ({@link TransportClient#requestOrLeave}: a reader that then
   * finds it back without the commit reads the next server of the chain); and then another server
   * of the chain must have taken it. A server that stayed silent or refused the commit otherwise
   * fails it, and Spark runs the task again.
   *
   * @throws IOException if a server that may still be read did not take the commit, or no server of
   *     some location took it
   */
  public void commit(int mapIndex) throws IOException, InterruptedException {
    awaitCommits(mapIndex, sendCommits(mapIndex, this::locationsOf));
  }

  /**
   * {@link #finish()} and {@link #commit(int)} in one, with the commits sent right behind the last
   * pushes rather than after their acknowledgements: a task that writes little waits one round trip
   * instead of two. A server records a commit's counts whether or not the blocks have arrived yet,
   * and no reader counts the attempt before this returns (Spark registers its MapStatus after the
   * task), so the order does not matter to readers. The commits so sent stand only if every block
   * was acknowledged by the location it was first batched for; when a push moved (a relocation, or
   * a partition that moved while the attempt wrote) or one of those commits failed, the commits are
   * sent again as {@link #commit} sends them, to the locations that took the blocks.
   *
   * @throws IOException as {@link #finish()} and {@link #commit(int)} do
   */
  public void finishAndCommit(int mapIndex) throws IOException, InterruptedException {
    Map<ServerAddress, CompletableFuture<StatusResponse>> early = null;
    synchronized (this) {
      for (Batch batch : List.copyOf(batches.values())) {
        send(batch);
      }
      if (failure == null && !batchedForMovedLocations) {
        early = sendCommits(mapIndex, p -> List.of(firstSent[p]));
      }
    }
    finish();
    if (early != null && acknowledgedWhereFirstBatched() && allSucceeded(early)) {
      return;
    }
    commit(mapIndex);
  }

  /** Sends the commit to every server of the written partitions' {@code locations}. */
  private Map<ServerAddress, CompletableFuture<StatusResponse>> sendCommits(
      int mapIndex, IntFunction<List<PartitionLocation>> locations) {
    Map<ServerAddress, List<Integer>> partitionsByServer = new LinkedHashMap<>();
    Set<ServerAddress> soleCopies = new HashSet<>();
    for (int p = 0; p < blockCounts.length; p++) {
      if (blockCounts[p] == 0) {
        continue;
      }
      for (PartitionLocation location : locations.apply(p)) {
        for (ServerAddress server : location.servers()) {
          partitionsByServer.computeIfAbsent(server, s -> new ArrayList<>()).add(p);
        }
        if (location.servers().size() == 1) {
          soleCopies.add(location.primary());
        }
      }
    }
    Map<ServerAddress, CompletableFuture<StatusResponse>> commits = new LinkedHashMap<>();
    for (Map.Entry<ServerAddress, List<Integer>> e : partitionsByServer.entrySet()) {
      ServerAddress server = e.getKey();
      int[] partitions = e.getValue().stream().mapToInt(Integer::intValue).toArray();
      int[] counts = new int[partitions.length];
      for (int i = 0; i < partitions.length; i++) {
        counts[i] = blockCounts[partitions[i]];
      }
      boolean mayLeave = !soleCopies.contains(server);
      commits.put(
          server,
          Retries.withRetries(
              () ->
                  clients
                      .getClientAsync(server.host(), server.port())
                      .thenCompose(
                          c ->
                              request(
                                  c,
                                  new CommitMapOutputRequest(
                                      TransportClient.nextRequestId(),
                                      appId,
                                      shuffleId,
                                      mapIndex,
                                      taskAttemptId,
                                      partitions,
                                      counts),
                                  mayLeave)),
              settings.backoff(),
              timer,
              counters::pushRetried));
    }
    return commits;
  }

  /**
   * Waits for the commits; fails unless each server that missed its commit is gone for readers and
   * every location kept one server that took it.
   */
  private void awaitCommits(
      int mapIndex, Map<ServerAddress, CompletableFuture<StatusResponse>> commits)
      throws IOException, InterruptedException {
    Map<String, String> failed = new HashMap<>();
    for (Map.Entry<ServerAddress, CompletableFuture<StatusResponse>> e : commits.entrySet()) {
      try {
        e.getValue().get();
      } catch (ExecutionException ex) {
        failed.put(e.getKey().serverId(), Retries.unwrap(ex).getMessage());
      }
    }
    if (failed.isEmpty()) {
      return;
    }
    LOG.warn(
        "Commit of map attempt {} of shuffle {} failed on {}", taskAttemptId, shuffleId, failed);
    for (Map.Entry<ServerAddress, CompletableFuture<StatusResponse>> e : commits.entrySet()) {
      Throwable cause = failedWith(e.getValue());
      if (cause != null && !isGoneForReaders(cause)) {
        throw new IOException(
            "commit of map "
                + mapIndex
                + " (attempt "
                + taskAttemptId
                + ") of shuffle "
                + shuffleId
                + " failed on "
                + e.getKey().serverId()
                + ", which readers may still read: "
                + cause.getMessage(),
            cause);
      }
    }
    for (int p = 0; p < blockCounts.length; p++) {
      if (blockCounts[p] == 0) {
        continue;
      }
      for (PartitionLocation location : locationsOf(p)) {
        if (location.servers().stream().allMatch(s -> failed.containsKey(s.serverId()))) {
          throw new IOException(
              "commit of map "
                  + mapIndex
                  + " (attempt "
                  + taskAttemptId
                  + ") of shuffle "
                  + shuffleId
                  + " failed: no server of partition "
                  + p
                  + "'s location "
                  + location
                  + " took it: "
                  + failed);
        }
      }
    }
  }

  /** Why the attempt ended before its end, or null. */
  private synchronized Throwable ended() {
    return failure;
  }

  /** Releases queued blocks after a failure; pushes in flight release theirs when they end. */
  public synchronized void abort() {
    if (failure == null) {
      failure = new IOException("the map attempt was aborted");
    }
    for (Batch batch : batches.values()) {
      buffered -= batch.held;
      batch.release();
    }
    batches.clear();
    notifyAll();
  }

  /** Blocks the attempt wrote to {@code partition} so far. */
  public int blockCount(int partition) {
    return blockCounts[partition];
  }

  /** Nanoseconds the attempt's thread spent waiting for room or acknowledgements. */
  public synchronized long waitNanos() {
    return waitNanos;
  }

  /** Bytes of block buffers held now, batched or in flight (by capacity). */
  public synchronized long bufferedBytes() {
    return buffered;
  }

  // ---- under this object's lock ----

  private void awaitRoom(int size) throws IOException {
    long start = System.nanoTime();
    try {
      while (buffered > 0 && buffered + size > settings.maxBytesBuffered() && failure == null) {
        Batch largest = null;
        for (Batch b : batches.values()) {
          if (largest == null || b.bytes > largest.bytes) {
            largest = b;
          }
        }
        if (largest != null) {
          send(largest);
        } else {
          awaitAcknowledgement();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for pushes to be acknowledged");
    } finally {
      waitNanos += System.nanoTime() - start;
    }
  }

  /** Waits a slice for an acknowledgement (or failure), then looks whether the task was killed. */
  private void awaitAcknowledgement() throws InterruptedException, InterruptedIOException {
    wait(WAIT_SLICE_MILLIS);
    if (killed.getAsBoolean()) {
      throw new InterruptedIOException(
          "the task was killed while map attempt "
              + taskAttemptId
              + " waited for "
              + outstanding
              + " pushes of shuffle "
              + shuffleId
              + " to be acknowledged");
    }
  }

  private void send(Batch batch) {
    batches.remove(batch.servers);
    outstanding++;
    push(batch, 0);
  }

  private void push(Batch batch, int relocations) {
    ServerAddress primary = batch.primary;
    List<ReplicaChain> chains = batch.chains();
    List<BlockDescriptor> blocks = List.copyOf(batch.blocks);
    boolean mayLeave = chains.size() == batch.locations.size();
    // Full pushes only, timed from their first send: a small one's time is mostly a round trip,
    // and making a connection is no measure of how fast the servers take blocks.
    boolean timeIt = pace.enabled() && batch.bytes >= settings.batchSize() / 2;
    List<String> servers = timeIt ? batch.serverIds() : List.of();
    AtomicReference<PushPace.Timing> timing = new AtomicReference<>();
    CompletableFuture<StatusResponse> pushed =
        Retries.withRetries(
            () -> {
              Throwable ended = ended();
              if (ended != null) {
                // An aborted or failed attempt sends nothing more: a retry after NO_BUFFER would
                // only hold the batch's buffers, and the server's memory, for as long as the
                // back-off lasts.
                // Wrapped: the attempt may have ended on a retriable status (NO_BUFFER), which
                // would be retried.
                return CompletableFuture.failedFuture(
                    new IOException("the map attempt ended: " + ended.getMessage(), ended));
              }
              return clients
                  .getClientAsync(primary.host(), primary.port())
                  .thenApply(
                      c -> {
                        // Attempts run one after another: only the first is timed.
                        if (timeIt && timing.get() == null) {
                          timing.set(
                              pace.started(
                                  servers, servers.size() == 1 && ThisHost.has(c.remoteAddress())));
                        }
                        return c;
                      })
                  // Every attempt sends its own views of the blocks; the batch keeps its
                  // references.
                  .thenCompose(
                      c ->
                          request(
                              c,
                              new PushDataRequest(
                                  TransportClient.nextRequestId(),
                                  appId,
                                  shuffleId,
                                  chains,
                                  blocks,
                                  new NettyManagedBuffer(batch.body(allocator))),
                              mayLeave));
            },
            settings.backoff(),
            timer,
            counters::pushRetried);
    long bytes = batch.bytes;
    pushed.whenComplete(
        (ok, error) -> {
          PushPace.Timing timed = timing.get();
          if (timed != null) {
            timed.ended(error == null ? bytes : 0);
          }
          onPushed(batch, relocations, error);
        });
  }

  private synchronized void onPushed(Batch batch, int relocations, Throwable error) {
    if (error == null) {
      for (Map.Entry<Integer, PartitionLocation> e : batch.locations.entrySet()) {
        markUsed(e.getKey(), e.getValue());
      }
      done(batch);
      moveFromSlowServers();
      return;
    }
    Throwable cause = Retries.unwrap(error);
    if (failure == null
        && Retries.isRetriableStatus(cause)
        && relocations < settings.maxRelocations()
        && allMoved(batch)) {
      // Refused until its retries ran out (memory always full), where the partitions have moved
      // since (the writers found the server slow): the server kept nothing of a refused push, so
      // the blocks go to the new locations rather than fail the attempt.
      LOG.info(
          "Push of shuffle {} to {} refused until its retries ran out ({}); its {} partitions"
              + " have moved since: pushing there",
          shuffleId,
          batch.primary,
          cause.getMessage(),
          batch.locations.size());
      onRelocated(batch, relocations, cause, Map.of(), null);
      return;
    }
    if (failure != null || !isLocationFailure(cause) || relocations >= settings.maxRelocations()) {
      fail(
          cause instanceof IOException io
              ? io
              : new IOException(NetworkErrors.describe(cause), cause),
          batch);
      return;
    }
    int[] partitions = batch.locations.keySet().stream().mapToInt(Integer::intValue).toArray();
    int[] epochs = new int[partitions.length];
    for (int i = 0; i < partitions.length; i++) {
      epochs[i] = batch.locations.get(partitions[i]).epoch();
    }
    String failedServer =
        Retries.hasStatus(cause, StatusCode.REPLICA_UNAVAILABLE)
            ? suspectedReplica(batch)
            : batch.primary.serverId();
    LOG.info(
        "Push of shuffle {} to {} failed ({}); moving {} partitions",
        shuffleId,
        batch.primary,
        cause.getMessage(),
        partitions.length);
    CompletableFuture<Map<Integer, PartitionLocation>> moved;
    try {
      moved = locator.relocate(partitions, epochs, failedServer, cause.getMessage());
    } catch (RuntimeException e) {
      moved = CompletableFuture.failedFuture(e);
    }
    moved.whenComplete(
        (locations, relocateError) ->
            onRelocated(batch, relocations, cause, locations, relocateError));
  }

  /**
   * Moves the partitions located on servers {@link PushPace} finds slow, once per finding and
   * attempt: blocks batched after the move go to the new locations, while what the slow servers
   * took, are taking or are to take in batches already made stays there (and is committed there). A
   * move that cannot be had leaves the partitions where they are.
   */
  private void moveFromSlowServers() {
    if (!pace.enabled() || failure != null) {
      return;
    }
    for (PushPace.Slow slow : pace.slowServers()) {
      if (!movedFromSlow.add(slow.servers())) {
        continue;
      }
      List<Integer> partitions = new ArrayList<>();
      List<Integer> epochs = new ArrayList<>();
      for (int p = 0; p < blockCounts.length; p++) {
        PartitionLocation location = locator.location(p);
        if (location.servers().stream()
            .map(ServerAddress::serverId)
            .toList()
            .containsAll(slow.servers())) {
          partitions.add(p);
          epochs.add(location.epoch());
        }
      }
      if (partitions.isEmpty()) {
        continue;
      }
      // One server to blame is named, and kept out of new locations; several are only avoided.
      String blamed = slow.servers().size() == 1 ? slow.servers().get(0) : "";
      String reason =
          String.format(
              "slow: pushes involving %s ran at %.1f MB/s, the others' at %.1f MB/s"
                  + " (spark.sluice.push.slow.ratio)",
              slow.servers().size() == 1 ? slow.servers().get(0) : slow.servers(),
              slow.bytesPerSecond() / 1e6,
              slow.referenceBytesPerSecond() / 1e6);
      LOG.info(
          "Shuffle {}: moving {} partitions from {}: {}",
          shuffleId,
          partitions.size(),
          slow.servers(),
          reason);
      CompletableFuture<Map<Integer, PartitionLocation>> moved;
      try {
        moved =
            locator.relocate(
                partitions.stream().mapToInt(Integer::intValue).toArray(),
                epochs.stream().mapToInt(Integer::intValue).toArray(),
                blamed,
                reason);
      } catch (RuntimeException e) {
        moved = CompletableFuture.failedFuture(e);
      }
      moved.whenComplete(
          (locations, error) -> {
            if (error != null) {
              LOG.info(
                  "Shuffle {}: partitions stay on slow {}: {}",
                  shuffleId,
                  slow.servers(),
                  Retries.unwrap(error).getMessage());
            }
          });
    }
  }

  /**
   * With replicas, a push or commit leaves a server in doubt rather than wait for its verdict
   * (another server holds the blocks or takes the partition); with one copy nothing else holds what
   * the server has, and a server that is only paused is worth the wait.
   */
  private static CompletableFuture<StatusResponse> request(
      TransportClient client, RequestMessage request, boolean mayLeave) {
    return mayLeave
        ? client.requestOrLeave(request, StatusResponse.class)
        : client.request(request, StatusResponse.class);
  }

  /**
   * The next server of the batch's chain (a batch has one) when this JVM suspects it of being
   * frozen or cut off and a primary answered REPLICA_UNAVAILABLE; null when it does not (then which
   * server failed is not known). The primary names the replica it could not reach only in its
   * message, but a writer pushes to every server as a primary too, and so usually has its own view
   * of the one that went silent; naming it keeps the driver from choosing it again.
   */
  private String suspectedReplica(Batch batch) {
    Set<ServerAddress> suspected = new HashSet<>();
    for (PartitionLocation location : batch.locations.values()) {
      if (!location.replicas().isEmpty()) {
        ServerAddress next = location.replicas().get(0);
        if (clients.suspects(next.host(), next.port())) {
          suspected.add(next);
        }
      }
    }
    return suspected.size() == 1 ? suspected.iterator().next().serverId() : null;
  }

  private synchronized void onRelocated(
      Batch failed,
      int relocations,
      Throwable pushError,
      Map<Integer, PartitionLocation> locations,
      Throwable error) {
    if (failure != null || error != null) {
      IOException e =
          new IOException(
              "push of shuffle "
                  + shuffleId
                  + " to "
                  + failed.primary
                  + " failed ("
                  + pushError.getMessage()
                  + ") and no new location could be had"
                  + (error == null ? "" : ": " + Retries.unwrap(error).getMessage()),
              pushError);
      fail(e, failed);
      return;
    }
    Map<List<ServerAddress>, Batch> moved = new LinkedHashMap<>();
    for (int i = 0; i < failed.blocks.size(); i++) {
      BlockDescriptor block = failed.blocks.get(i);
      PartitionLocation location =
          locations.getOrDefault(block.partitionId(), locator.location(block.partitionId()));
      moved
          .computeIfAbsent(location.servers(), k -> new Batch(location.servers()))
          .add(block, failed.data.get(i), location);
    }
    failed.data.clear();
    outstanding--;
    for (Batch batch : moved.values()) {
      outstanding++;
      push(batch, relocations + 1);
    }
  }

  /** Whether every partition of the batch is located elsewhere now than when it was batched. */
  private boolean allMoved(Batch batch) {
    return batch.locations.entrySet().stream()
        .allMatch(e -> locator.location(e.getKey()).epoch() != e.getValue().epoch());
  }

  private void done(Batch batch) {
    buffered -= batch.held;
    batch.release();
    outstanding--;
    notifyAll();
  }

  private void fail(IOException cause, Batch batch) {
    if (failure == null) {
      failure = cause;
    }
    done(batch);
  }

  private void checkFailure() throws IOException {
    if (failure != null) {
      throw failure instanceof IOException io
          ? new IOException("push of shuffle " + shuffleId + " failed: " + io.getMessage(), io)
          : new IOException("push of shuffle " + shuffleId + " failed", failure);
    }
  }

  private void markUsed(int partition, PartitionLocation location) {
    PartitionLocation first = usedLocations[partition];
    if (first == null) {
      usedLocations[partition] = location;
    } else if (!first.equals(location)) {
      moreLocations.computeIfAbsent(partition, p -> new LinkedHashSet<>()).add(location);
    }
  }

  /**
   * Whether every block of the attempt was acknowledged by its partition's epoch-0 location (the
   * one the shuffle was registered with) and no other: readers need no newer locations to find the
   * attempt's output. Call after {@link #finish()}.
   */
  public synchronized boolean wroteToFirstLocationsOnly() {
    for (int p = 0; p < blockCounts.length; p++) {
      if (blockCounts[p] == 0) {
        continue;
      }
      if (usedLocations[p] == null) {
        return false;
      }
      for (PartitionLocation location : locationsOf(p)) {
        if (location.epoch() != 0) {
          return false;
        }
      }
    }
    return true;
  }

  /** Every written partition's blocks were acknowledged by the location they were batched for. */
  private synchronized boolean acknowledgedWhereFirstBatched() {
    for (int p = 0; p < blockCounts.length; p++) {
      if (blockCounts[p] > 0 && !locationsOf(p).equals(List.of(firstSent[p]))) {
        return false;
      }
    }
    return true;
  }

  private static boolean allSucceeded(Map<ServerAddress, CompletableFuture<StatusResponse>> commits)
      throws InterruptedException {
    for (CompletableFuture<StatusResponse> commit : commits.values()) {
      try {
        commit.get();
      } catch (ExecutionException e) {
        return false;
      }
    }
    return true;
  }

  private synchronized List<PartitionLocation> locationsOf(int partition) {
    List<PartitionLocation> all = new ArrayList<>();
    if (usedLocations[partition] != null) {
      all.add(usedLocations[partition]);
    }
    all.addAll(moreLocations.getOrDefault(partition, Set.of()));
    return all;
  }

  /** The failure of a completed future, or null if it succeeded. */
  private static Throwable failedWith(CompletableFuture<?> done) {
    try {
      done.join();
      return null;
    } catch (CompletionException | CancellationException e) {
      return Retries.unwrap(e);
    }
  }

  /**
   * Whether a failed request shows the server cannot be read any more: its connection failed (not
   * merely timed out), or it no longer knows the shuffle (it restarted) or is stopping.
   */
  static boolean isGoneForReaders(Throwable cause) {
    if (cause instanceof RemoteException remote) {
      return switch (remote.status()) {
        case SHUTTING_DOWN, UNKNOWN_APPLICATION, UNKNOWN_SHUFFLE -> true;
        default -> false;
      };
    }
    return cause instanceof IOException && !(cause instanceof RequestTimeoutException);
  }

  /**
   * Whether a push failed because its location cannot take blocks now, so that the blocks belong
   * elsewhere: the connection failed or stayed silent, or the server no longer knows the shuffle,
   * is draining, has no disk, or could not forward to its replica.
   */
  static boolean isLocationFailure(Throwable cause) {
    if (cause instanceof RemoteException remote) {
      return switch (remote.status()) {
        case SHUTTING_DOWN,
            UNKNOWN_APPLICATION,
            UNKNOWN_SHUFFLE,
            STORAGE_UNAVAILABLE,
            REPLICA_UNAVAILABLE,
            INTERNAL_ERROR ->
            true;
        default -> false;
      };
    }
    return cause instanceof IOException;
  }

  /**
   * Blocks bound for one chain of servers (a primary and the replicas it forwards to), with the
   * location each partition was routed with. One chain per push, so that a push's pace is that of
   * its servers ({@link PushPace}) and a slow replica holds up only its own chain's pushes.
   */
  private static final class Batch {
    final List<ServerAddress> servers;
    final ServerAddress primary;
    final List<BlockDescriptor> blocks = new ArrayList<>();
    final List<ByteBuf> data = new ArrayList<>();
    final Map<Integer, PartitionLocation> locations = new LinkedHashMap<>();

    /** Bytes of the blocks, what the push carries. */
    long bytes;

    /** Capacity of the blocks' buffers, what they take from memory. */
    long held;

    Batch(List<ServerAddress> servers) {
      this.servers = List.copyOf(servers);
      this.primary = servers.get(0);
    }

    void add(BlockDescriptor block, ByteBuf bytes, PartitionLocation location) {
      blocks.add(block);
      data.add(bytes);
      locations.put(block.partitionId(), location);
      this.bytes += block.length();
      this.held += bytes.capacity();
    }

    /** The ids of the chain's servers, sorted. */
    List<String> serverIds() {
      return servers.stream().map(ServerAddress::serverId).sorted().toList();
    }

    List<ReplicaChain> chains() {
      List<ReplicaChain> chains = new ArrayList<>();
      for (Map.Entry<Integer, PartitionLocation> e : locations.entrySet()) {
        if (!e.getValue().replicas().isEmpty()) {
          chains.add(new ReplicaChain(e.getKey(), e.getValue().replicas()));
        }
      }
      return chains;
    }

    /** A new body over the blocks' bytes: retained duplicates, owned by the returned buffer. */
    CompositeByteBuf body(ByteBufAllocator allocator) {
      CompositeByteBuf body = allocator.compositeDirectBuffer(Integer.MAX_VALUE);
      for (ByteBuf b : data) {
        body.addComponent(true, b.retainedDuplicate());
      }
      return body;
    }

    void release() {
      for (ByteBuf b : data) {
        b.release();
      }
      data.clear();
    }
  }
}
