package io.sluice.client.spark.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.block.BlockIdLayout;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.client.spark.Retries;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a reduce task's partitions from the servers in the background and hands the kept blocks to
 * the task's thread through a queue.
 *
 * <p>Each partition is read the way the server's read semantics require: the block ids its counted
 * map attempts committed ({@code GetShuffleResult}), then the blocks still in the server's memory
 * page by page, then the index, then the data on disk that was not already read from memory, in
 * reads that merge adjacent blocks. Only blocks of counted attempts that were committed are kept,
 * each (taskAttemptId, blockId) once; once a partition is read, every committed block must have
 * arrived. A few partitions are opened at once, and the reads of all of them run ahead of the task
 * within a budget of bytes requested and not yet consumed.
 *
 * <p>Retriable failures (a busy or full server, a timeout) are retried with a doubling back-off;
 * any other failure, a missing block or a malformed answer ends the fetch with a
 * {@link PartitionFetchException}, which the task thread receives before any block still queued.
 *
 * <p>Threads: answers arrive on the transport's event loops and retries on the client's timer;
 * everything that touches the pipeline's state runs through one {@link SerialRunner}. The task
 * thread only takes blocks, gives them back and closes.
 *
 * <p>Buffers: every answer is released once its blocks are cut out of it; each queued block owns a
 * reference that its taker releases through {@link #consumed}. {@link #close()} (or a failure)
 * releases what is queued or partly assembled, and answers that arrive afterwards are released on
 * arrival.
 */
final class ShuffleBlockFetcher implements BlockSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleBlockFetcher.class);
  /** Partitions whose metadata (commit list, memory pages, index) is read at the same time. */
  private static final int MAX_OPEN_PARTITIONS = 8;
  private static final long WAIT_SLICE_MILLIS = 100;
  private static final Object END = new Object();

  /**
   * One partition to read.
   *
   * @param partition the partition id
   * @param client the connection to the server that holds it
   * @param server the server, for messages
   * @param attempts the map attempts Spark counts that wrote bytes to the partition; not modified
   */
  record PartitionSource(int partition, TransportClient client, String server, long[] attempts) {}

  private final String appId;
  private final int shuffleId;
  private final FetchSettings settings;
  private final ByteBufAllocator allocator;
  private final ScheduledExecutorService timer;
  private final List<Partition> partitions = new ArrayList<>();
  private final SerialRunner runner = new SerialRunner(this::onUnexpected);
  private final LinkedBlockingDeque<Object> ready = new LinkedBlockingDeque<>();
  private final AtomicLong requestNanos = new AtomicLong();

  // Runner state: touched by runner tasks only.
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private final Set<RangeAssembler> openRanges = new HashSet<>();
  private long reservedBytes;
  private int nextToOpen;
  private int openPartitions;
  private int completePartitions;
  private boolean stopped;

  // Task-thread state.
  private boolean finished;
  private PartitionFetchException failure;

  /**
   * @param sources the partitions to read, in the order to open them
   * @param allocator for the buffers that join blocks split across two answers
   * @param timer runs retries after their back-off
   */
  ShuffleBlockFetcher(String appId, int shuffleId, List<PartitionSource> sources,
      FetchSettings settings, BlockIdLayout layout, ByteBufAllocator allocator,
      ScheduledExecutorService timer) {
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.settings = settings;
    this.allocator = allocator;
    this.timer = timer;
    for (PartitionSource source : sources) {
      partitions.add(new Partition(source, new ExpectedBlocks(source.attempts(), layout)));
    }
  }

  /** Starts reading. */
  void start() {
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
    while ((item = ready.poll(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) == null) {
      whileWaiting.run();
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
    runner.execute(() -> {
      task.run();
      dispatch();
    });
  }

  private void openNext() {
    while (!stopped && openPartitions < MAX_OPEN_PARTITIONS && nextToOpen < partitions.size()) {
      Partition p = partitions.get(nextToOpen++);
      openPartitions++;
      send(new Call<>(p, "the list of committed blocks",
          () -> new GetShuffleResultRequest(TransportClient.nextRequestId(), appId, shuffleId,
              p.id(), p.source.attempts()),
          GetShuffleResultResponse.class, r -> onCommittedBlocks(p, r)));
    }
  }

  private void onCommittedBlocks(Partition p, GetShuffleResultResponse response)
      throws PartitionFetchException {
    long lost = p.blocks.expect(response.blockIds());
    if (lost >= 0) {
      throw new PartitionFetchException(p.id(), lost, "server " + p.source.server()
          + " lists no committed block of map attempt " + lost + " for partition " + p.id()
          + " of shuffle " + shuffleId + ", though Spark counts that attempt's output", null);
    }
    readMemory(p, FetchMemoryDataRequest.FROM_START);
  }

  private void readMemory(Partition p, long afterSequence) {
    int page = settings.maxRequestBytes();
    p.pendingReads++;
    waiting.add(new Waiting(page, () -> send(new Call<>(p,
        "blocks in memory after sequence " + afterSequence,
        () -> new FetchMemoryDataRequest(TransportClient.nextRequestId(), appId, shuffleId, p.id(),
            afterSequence, page),
        FetchMemoryDataResponse.class, r -> onMemoryPage(p, afterSequence, page, r)))));
  }

  /** The reservation of a page was a guess; from here on the page's actual bytes count. */
  private void onMemoryPage(Partition p, long afterSequence, int reserved,
      FetchMemoryDataResponse page) throws IOException {
    boolean more = page.hasMore();
    long last = page.lastSequence();
    try {
      ByteBuf body = bodyOf(page);
      reservedBytes += body.readableBytes() - reserved;
      if (more && (page.blocks().isEmpty() || last <= afterSequence)) {
        throw new IOException("a memory page after sequence " + afterSequence
            + " says more blocks follow but ends at sequence " + last);
      }
      int at = body.readerIndex();
      for (BlockDescriptor d : page.blocks()) {
        if (d.partitionId() != p.id()) {
          throw new IOException("a memory page of partition " + p.id()
              + " holds a block of partition " + d.partitionId());
        }
        offer(p, d.taskAttemptId(), d.blockId(), d.uncompressedLength(), d.crc32c(),
            body.retainedSlice(at, d.length()));
        at += d.length();
      }
    } finally {
      ReferenceCountUtil.release(page);
    }
    p.pendingReads--;
    if (more) {
      readMemory(p, last);
    } else {
      readIndex(p);
    }
  }

  /** Only after the last memory page: a block flushed meanwhile is then in the index. */
  private void readIndex(Partition p) {
    send(new Call<>(p, "the index",
        () -> new FetchIndexRequest(TransportClient.nextRequestId(), appId, shuffleId, p.id()),
        FetchIndexResponse.class, r -> onIndex(p, r)));
  }

  private void onIndex(Partition p, FetchIndexResponse index) throws IOException {
    List<IndexedBlock> entries;
    long dataLength = index.dataFileLength();
    try {
      entries = IndexDecoder.decode(bodyOf(index));
    } finally {
      ReferenceCountUtil.release(index);
    }
    for (DataRange range : RangePlanner.plan(
        entries, dataLength, p.blocks::wants, settings.maxRequestBytes())) {
      RangeAssembler assembler = new RangeAssembler(range, allocator);
      p.pendingReads++;
      waiting.add(new Waiting(range.length(), () -> readRange(p, assembler)));
    }
    p.planned = true;
    openPartitions--;
    finishIfDone(p);
    openNext();
  }

  private void readRange(Partition p, RangeAssembler assembler) {
    if (assembler.complete()) {
      deliver(p, assembler, assembler.takeCompleted());
      return;
    }
    openRanges.add(assembler);
    send(new Call<>(p, "data [" + assembler.nextOffset() + ", +" + assembler.remaining() + ")",
        () -> new FetchDataRequest(TransportClient.nextRequestId(), appId, shuffleId, p.id(),
            assembler.nextOffset(), assembler.remaining()),
        FetchDataResponse.class, r -> onData(p, assembler, r)));
  }

  private void onData(Partition p, RangeAssembler assembler, FetchDataResponse data)
      throws IOException {
    List<RangeAssembler.Piece> pieces;
    try {
      pieces = assembler.append(bodyOf(data).retain());
    } finally {
      ReferenceCountUtil.release(data);
    }
    deliver(p, assembler, pieces);
  }

  /** Offers the blocks cut so far; reads on where a short answer ended, or closes the range. */
  private void deliver(Partition p, RangeAssembler assembler, List<RangeAssembler.Piece> pieces) {
    for (RangeAssembler.Piece piece : pieces) {
      IndexedBlock b = piece.block();
      offer(p, b.taskAttemptId(), b.blockId(), b.uncompressedLength(), b.crc32c(), piece.data());
    }
    if (!assembler.complete()) {
      readRange(p, assembler);
      return;
    }
    assembler.close();
    openRanges.remove(assembler);
    p.pendingReads--;
    finishIfDone(p);
  }

  /** Queues a block its partition still needs, or releases it. Takes over {@code data}. */
  private void offer(Partition p, long taskAttemptId, long blockId, int uncompressedLength,
      int crc32c, ByteBuf data) {
    if (p.blocks.accept(taskAttemptId, blockId)) {
      ready.add(new FetchedBlock(p.id(), taskAttemptId, blockId, uncompressedLength, crc32c, data));
    } else {
      reservedBytes -= data.readableBytes();
      data.release();
    }
  }

  private void finishIfDone(Partition p) {
    if (!p.planned || p.pendingReads > 0 || p.done) {
      return;
    }
    p.done = true;
    long missing = p.blocks.firstMissing();
    if (missing >= 0) {
      long attempt = p.blocks.attemptOf(missing);
      fail(p, new PartitionFetchException(p.id(), attempt, "block " + missing + " of map attempt "
          + attempt + " for partition " + p.id() + " of shuffle " + shuffleId
          + " was committed, but neither the memory nor the disk of server "
          + p.source.server() + " holds it", null));
      return;
    }
    if (++completePartitions == partitions.size()) {
      ready.add(END);
    }
  }

  /** Starts the reads at the head of the queue while the budget allows; the first always goes. */
  private void dispatch() {
    while (!stopped && !waiting.isEmpty()) {
      Waiting next = waiting.peek();
      if (reservedBytes > 0 && reservedBytes + next.bytes() > settings.maxBytesInFlight()) {
        return;
      }
      waiting.poll();
      reservedBytes += next.bytes();
      next.start().run();
    }
  }

  private <R extends ResponseMessage> void send(Call<R> call) {
    long started = System.nanoTime();
    CompletableFuture<R> answer;
    try {
      answer = call.partition.source.client().request(call.request.get(), call.type);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((response, error) -> onRunner(() -> {
      requestNanos.addAndGet(System.nanoTime() - started);
      onAnswer(call, response, error);
    }));
  }

  private <R extends ResponseMessage> void onAnswer(Call<R> call, R response, Throwable error) {
    if (stopped) {
      ReferenceCountUtil.release(response);
      return;
    }
    if (error == null) {
      try {
        call.handler.handle(response);
      } catch (IOException e) {
        fail(call.partition, e);
      }
      return;
    }
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
    // A retriable status is retried with back-off; a timeout once (see Retries).
    boolean retry = Retries.isRetriableStatus(cause) ? call.retries < settings.maxRetries()
        : Retries.isTimeout(cause) && call.timeouts++ == 0;
    if (retry) {
      long wait = settings.backoffMillis(call.retries++);
      LOG.debug("Reading {} of partition {} from {} failed ({}); retry {} in {} ms", call.what,
          call.partition.id(), call.partition.source.server(), cause.toString(), call.retries,
          wait);
      try {
        timer.schedule(() -> onRunner(() -> {
          if (!stopped) {
            send(call);
          }
        }), wait, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        fail(call.partition, new IOException("cannot retry reading " + call.what
            + ": the client is shutting down", cause));
      }
      return;
    }
    fail(call.partition, new IOException("reading " + call.what + " failed"
        + (call.retries > 0 ? " after " + call.retries + " retries" : "") + ": " + cause, cause));
  }

  private void fail(Partition p, IOException e) {
    if (stopped) {
      return;
    }
    PartitionFetchException f = e instanceof PartitionFetchException known
        ? known
        : new PartitionFetchException(p.id(), -1, "cannot read partition " + p.id()
            + " of shuffle " + shuffleId + " from server " + p.source.server() + ": "
            + e.getMessage(), e);
    LOG.warn("Fetch failed: {}", f.getMessage());
    stop();
    ready.addFirst(f);
  }

  private void stop() {
    stopped = true;
    waiting.clear();
    for (RangeAssembler assembler : openRanges) {
      assembler.close();
    }
    openRanges.clear();
    Object item;
    while ((item = ready.poll()) != null) {
      if (item instanceof FetchedBlock block) {
        block.release();
      }
    }
  }

  /** A bug in a runner task: fail the fetch rather than leave the task waiting. */
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
    fail(blamed, new IOException("unexpected error in the fetch pipeline: " + t, t));
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
    final ExpectedBlocks blocks;
    /** Memory pages and data ranges queued or in flight. */
    int pendingReads;
    /** The index was read and its ranges queued. */
    boolean planned;
    boolean done;

    Partition(PartitionSource source, ExpectedBlocks blocks) {
      this.source = source;
      this.blocks = blocks;
    }

    int id() {
      return source.partition();
    }
  }

  /** A read that waits for room in the budget. */
  private record Waiting(long bytes, Runnable start) {}

  @FunctionalInterface
  private interface AnswerHandler<R> {
    /** Handles a successful answer and releases it. */
    void handle(R answer) throws IOException;
  }

  /** One request, re-created with a fresh id on each retry. */
  private static final class Call<R extends ResponseMessage> {
    final Partition partition;
    final String what;
    final Supplier<RequestMessage> request;
    final Class<R> type;
    final AnswerHandler<R> handler;
    int retries;
    int timeouts;

    Call(Partition partition, String what, Supplier<RequestMessage> request, Class<R> type,
        AnswerHandler<R> handler) {
      this.partition = partition;
      this.what = what;
      this.request = request;
      this.type = type;
      this.handler = handler;
    }
  }
}
