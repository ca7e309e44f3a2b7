package io.sluice.client.core.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.AbstractBodyMessage;
import io.sluice.common.protocol.PartitionLocation;
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
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads one location of a partition from one server of its chain at a time, in the phases the
 * server's read semantics require: the block counts of the counted map attempts ({@code
 * GetShuffleResult}), the blocks still in memory page by page, then the index (in pages from
 * protocol 5, whole before), then the data on disk not already read from memory, in reads that
 * merge adjacent blocks. The first memory page is asked for together with the counts, so that a
 * partition that never left memory costs one round trip; it is taken in only after them. Every
 * block is checked against its CRC32C before it is offered.
 *
 * <p>What lies beyond one server's phases is the {@link Pipeline}'s: the budget of bytes in flight
 * and the queue of reads waiting for it, sending and retrying requests, the consumer's queue, and
 * moving on along the chain when a server fails. The pipeline's {@link PartitionReader} also moves
 * this reader from server to server through its package-private fields. Runs on the reader's runner
 * only.
 *
 * <p>Buffers: an answer is released by the pipeline after its handler here returns; the blocks cut
 * out of it hold references of their own, which go with the block to the consumer or are released
 * here when the block is not wanted.
 */
final class LocationReader {
  /** Bytes of a FetchData answer's frame besides its data: the type byte and the header. */
  private static final int DATA_ANSWER_OVERHEAD =
      1 + FetchDataResponse.ok(0, new NettyManagedBuffer(Unpooled.EMPTY_BUFFER)).encodedLength();

  /** Added to a partition's expected bytes in its first memory page's request. */
  static final int FIRST_PAGE_SLACK = 64 << 10;

  /** What a location's reader asks of the reader that runs it. */
  interface Pipeline {
    String appId();

    int shuffleId();

    FetchSettings settings();

    /** For the buffers that join blocks split across two answers. */
    ByteBufAllocator allocator();

    /**
     * Queues {@code start} behind the reads already waiting, to run once the budget of bytes in
     * flight has room for {@code bytes} (the first waiting read always runs); reserves nothing
     * itself. Dropped if the reader's server is given up on first.
     */
    void whenBudgetAllows(LocationReader owner, long bytes, Runnable start);

    /** Sends {@code call} for the first time; its reservation is held until it is answered. */
    <R extends ResponseMessage> void send(ReadCall<R> call);

    /** Adds {@code bytes} (negative: returns them) to the bytes in flight. */
    void hold(long bytes);

    /** Hands a block to the consumer. */
    void ready(FetchedBlock block);

    /** Gives up on the reader's current server: the location is read from the next one. */
    void serverFailed(LocationReader reader, IOException cause);

    /** The reader read the whole index and queued its reads: its partition may open the next. */
    void metadataRead(LocationReader reader);

    /** Every read of the reader's server was done: the location is read. */
    void locationRead(LocationReader reader);

    void failPartition(PartitionRead partition, PartitionFetchException e);

    String describe(PartitionRead partition);
  }

  final PartitionRead partition;
  final PartitionLocation location;
  private final Pipeline pipeline;
  final Set<ReadCall<?>> calls = new HashSet<>();
  final Set<RangeAssembler> ranges = new HashSet<>();

  /** Other locations of the partition waiting for this one's current server to be read. */
  final List<LocationReader> followers = new ArrayList<>();

  /** The location whose reading of this one's current server this one waits for, or null. */
  LocationReader waitingFor;

  /** Where in the chain the location is read first; on a failure the reader goes on around it. */
  private final int firstServer;

  /** Servers of the chain given up on so far; the chain's length once every one was. */
  int tried;

  /** Counts the servers tried, so that a late connection to an abandoned one is ignored. */
  int attempt;

  TransportClient client;

  /** Memory pages and data ranges queued or in flight. */
  int pendingReads;

  /** The index was read and its ranges queued. */
  boolean planned;

  /** The partition moved on to its next location after this one's metadata. */
  boolean advanced;

  /** The current server's block counts arrived: its memory pages may be taken in. */
  private boolean countsKnown;

  /**
   * The current server's first memory page when it arrived before the block counts, retained and
   * its bytes held in the budget until they arrive; null otherwise.
   */
  private FetchMemoryDataResponse earlyPage;

  boolean finished;

  /**
   * @param firstServer the index in the location's chain of the server to read first, taken modulo
   *     the chain's length
   */
  LocationReader(
      PartitionRead partition, PartitionLocation location, int firstServer, Pipeline pipeline) {
    this.partition = partition;
    this.location = location;
    this.firstServer = Math.floorMod(firstServer, location.servers().size());
    this.pipeline = pipeline;
  }

  /** The server being read, or the last one tried once every server was. */
  ServerAddress currentServer() {
    List<ServerAddress> chain = location.servers();
    return chain.get((firstServer + Math.min(tried, chain.size() - 1)) % chain.size());
  }

  /** Every server of the chain was given up on. */
  boolean triedAll() {
    return tried == location.servers().size();
  }

  /** The chain has a server after the current one that was not tried yet. */
  boolean hasUntriedServer() {
    return tried + 1 < location.servers().size();
  }

  /**
   * Points the reader at the next server of its chain and forgets the current one's connection and
   * progress; what was asked of it (calls, ranges, a first page waiting for the counts) the
   * pipeline abandons beforehand.
   */
  void moveToNextServer() {
    tried++;
    attempt++;
    client = null;
    pendingReads = 0;
    planned = false;
    countsKnown = false;
  }

  /**
   * Releases a first memory page kept waiting for the block counts, when the current server is
   * given up on or the reader stops; returns the bytes it held in the budget.
   */
  long releaseEarlyPage() {
    if (earlyPage == null) {
      return 0;
    }
    long held = earlyPage.body().size();
    earlyPage.release();
    earlyPage = null;
    return held;
  }

  /**
   * The first phase, once connected to the current server: the block counts, and with them the
   * first memory page (one round trip instead of two; the page waits for the counts, which decide
   * the blocks wanted and whether the index must be read).
   */
  void connected(TransportClient connection) {
    client = connection;
    pipeline.send(
        new ReadCall<>(
            this,
            "the block counts",
            () ->
                new GetShuffleResultRequest(
                    TransportClient.nextRequestId(),
                    pipeline.appId(),
                    pipeline.shuffleId(),
                    partition.id(),
                    partition.expected.attempts()),
            GetShuffleResultResponse.class,
            this::onBlockCounts));
    readMemory(FetchMemoryDataRequest.FROM_START);
  }

  private void onBlockCounts(GetShuffleResultResponse answer) throws IOException {
    int[] counts = answer.blockCounts();
    long[] attempts = partition.expected.attempts();
    if (counts.length != attempts.length) {
      throw new IOException(
          "asked for the block counts of "
              + attempts.length
              + " map attempts, got "
              + counts.length);
    }
    for (int i = 0; i < counts.length; i++) {
      try {
        partition.expected.commit(attempts[i], counts[i]);
      } catch (IllegalStateException e) {
        pipeline.failPartition(
            partition,
            new PartitionFetchException(
                partition.id(), pipeline.describe(partition) + ": " + e.getMessage(), e));
        return;
      }
    }
    countsKnown = true;
    FetchMemoryDataResponse page = earlyPage;
    if (page != null) {
      earlyPage = null;
      pipeline.hold(-page.body().size());
      try {
        onMemoryPage(FetchMemoryDataRequest.FROM_START, page);
      } finally {
        page.release();
      }
    }
  }

  private void readMemory(long afterSequence) {
    int page =
        afterSequence == FetchMemoryDataRequest.FROM_START
            ? firstPageBytes()
            : pipeline.settings().maxRequestBytes();
    pendingReads++;
    pipeline.whenBudgetAllows(
        this,
        page,
        () ->
            pipeline.send(
                new ReadCall<>(
                        this,
                        "blocks in memory after sequence " + afterSequence,
                        () ->
                            new FetchMemoryDataRequest(
                                TransportClient.nextRequestId(),
                                pipeline.appId(),
                                pipeline.shuffleId(),
                                partition.id(),
                                afterSequence,
                                page,
                                partition.expected.attempts()),
                        FetchMemoryDataResponse.class,
                        answer -> onMemoryPage(afterSequence, answer))
                    .reserving(page)));
  }

  /**
   * The first memory page's size: the partition's expected bytes with room to spare, when Spark's
   * map statuses told them, so that a partition of a few KiB holds a few KiB of the budget of bytes
   * in flight while it waits for its page, not a whole request's, and many small partitions are
   * read at once. A page too small for what is in memory is followed by the next as usual.
   */
  private int firstPageBytes() {
    int request = pipeline.settings().maxRequestBytes();
    long expected = partition.source.expectedBytes();
    if (expected < 0) {
      return request;
    }
    // Half again: map statuses round sizes (by up to 10%, more for averaged small blocks) and
    // count Spark's stream framing, not Sluice's; the slack covers the 28-byte descriptors.
    return (int) Math.min(request, expected + expected / 2 + FIRST_PAGE_SLACK);
  }

  /** The reservation of a page was a guess; from here on the page's actual bytes count. */
  private void onMemoryPage(long afterSequence, FetchMemoryDataResponse page) throws IOException {
    if (!countsKnown) {
      page.retain();
      earlyPage = page;
      pipeline.hold(page.body().size());
      return;
    }
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
      if (d.partitionId() != partition.id()) {
        throw new IOException(
            "a memory page of partition "
                + partition.id()
                + " holds a block of partition "
                + d.partitionId());
      }
    }
    pipeline.hold(body.readableBytes());
    int at = body.readerIndex();
    for (BlockDescriptor d : page.blocks()) {
      int end = at + d.length();
      if (!offer(
          d.taskAttemptId(),
          d.sequence(),
          d.uncompressedLength(),
          d.crc32c(),
          body.retainedSlice(at, d.length()))) {
        pipeline.hold(-(body.writerIndex() - end));
        return;
      }
      at = end;
    }
    pendingReads--;
    if (more) {
      readMemory(last);
    } else if (partition.expected.missing() == null) {
      // Every block of every counted attempt has arrived: the index could list only blocks
      // already read, so a partition that never left the servers' memory costs no index round trip.
      indexRead();
    } else {
      readIndex();
    }
  }

  /**
   * Only after the last memory page: a block flushed meanwhile is then in the index. Read in pages
   * from servers that speak protocol 5 (an index of any size), whole from older ones.
   */
  private void readIndex() {
    if (client.protocolVersion() >= FetchIndexPageRequest.SINCE_VERSION) {
      readIndexPage(0);
      return;
    }
    pipeline.send(
        new ReadCall<>(
            this,
            "the index",
            () ->
                new FetchIndexRequest(
                    TransportClient.nextRequestId(),
                    pipeline.appId(),
                    pipeline.shuffleId(),
                    partition.id()),
            FetchIndexResponse.class,
            answer -> {
              queueRanges(IndexEntry.decodeAll(bodyOf(answer)), answer.dataFileLength(), 0);
              indexRead();
            }));
  }

  /**
   * Queues the request for a page behind the reads already waiting, the previous page's included,
   * with its size reserved until it is answered: pages go no faster than their reads, so neither
   * the pages nor the reads planned from them pile up ahead of the budget.
   */
  private void readIndexPage(int fromEntry) {
    int page = pipeline.settings().maxRequestBytes();
    pendingReads++;
    pipeline.whenBudgetAllows(
        this,
        page,
        () ->
            pipeline.send(
                new ReadCall<>(
                        this,
                        "the index from entry " + fromEntry,
                        () ->
                            new FetchIndexPageRequest(
                                TransportClient.nextRequestId(),
                                pipeline.appId(),
                                pipeline.shuffleId(),
                                partition.id(),
                                fromEntry,
                                page),
                        FetchIndexPageResponse.class,
                        answer -> onIndexPage(fromEntry, answer))
                    .reserving(page)));
  }

  /** Queues the page's reads (they start as the budget allows), then the next page. */
  private void onIndexPage(int fromEntry, FetchIndexPageResponse page) throws IOException {
    if (page.hasMore() && page.nextEntry() <= fromEntry) {
      throw new IOException(
          "an index page from entry "
              + fromEntry
              + " says more entries follow but names entry "
              + page.nextEntry()
              + " as the next");
    }
    queueRanges(
        IndexEntry.decodeAll(bodyOf(page)), page.dataFileLength(), RangePlanner.MAX_SKIPPED_BYTES);
    pendingReads--;
    if (page.hasMore()) {
      readIndexPage(page.nextEntry());
    } else {
      indexRead();
    }
  }

  /**
   * @param maxSkipped the most bytes between blocks a read may span ({@link RangePlanner#plan}):
   *     only within one page of the index, which is one file's
   */
  private void queueRanges(List<IndexEntry> entries, long dataLength, int maxSkipped) {
    for (DataRange range :
        RangePlanner.plan(
            entries,
            dataLength,
            partition.expected::wants,
            Math.min(pipeline.settings().maxRequestBytes(), readLimit()),
            maxSkipped)) {
      RangeAssembler assembler = new RangeAssembler(range, pipeline.allocator());
      pendingReads++;
      pipeline.whenBudgetAllows(
          this,
          range.length(),
          () -> {
            ranges.add(assembler);
            pipeline.hold(range.length());
            assembler.reserve(range.length());
            readRange(assembler);
          });
    }
  }

  /** The whole index was read and its reads queued. */
  private void indexRead() {
    planned = true;
    finishIfRead();
    pipeline.metadataRead(this);
  }

  private void readRange(RangeAssembler assembler) {
    if (assembler.complete()) {
      deliver(assembler, assembler.takeCompleted());
      return;
    }
    int length = Math.min(assembler.remaining(), readLimit());
    pipeline.send(
        new ReadCall<>(
            this,
            "data [" + assembler.nextOffset() + ", +" + length + ")",
            () ->
                new FetchDataRequest(
                    TransportClient.nextRequestId(),
                    pipeline.appId(),
                    pipeline.shuffleId(),
                    partition.id(),
                    assembler.nextOffset(),
                    length),
            FetchDataResponse.class,
            answer -> deliver(assembler, assembler.append(bodyOf(answer).retain()))));
  }

  /**
   * The most bytes one data read from the server may ask for: a request's size, and what the
   * server's frame (told at the handshake, from protocol 5) holds. A longer range, even a single
   * block, is read in several answers, as a short answer is.
   */
  private int readLimit() {
    int frame = client.serverMaxFrameSize();
    int serverLimit = frame == 0 ? Integer.MAX_VALUE : Math.max(1, frame - DATA_ANSWER_OVERHEAD);
    // The request size is within this client's own frame too (FetchSettings.of).
    return Math.min(serverLimit, pipeline.settings().maxRequestBytes());
  }

  /** Offers the blocks cut so far; reads on where a short answer ended, or closes the range. */
  private void deliver(RangeAssembler assembler, List<RangeAssembler.Piece> pieces) {
    long dropped = assembler.takeDroppedBytes();
    assembler.settle(dropped);
    pipeline.hold(-dropped);
    for (int i = 0; i < pieces.size(); i++) {
      RangeAssembler.Piece piece = pieces.get(i);
      IndexEntry b = piece.block();
      assembler.settle(b.length());
      if (!offer(
          b.taskAttemptId(), b.sequence(), b.uncompressedLength(), b.crc32c(), piece.data())) {
        for (int j = i + 1; j < pieces.size(); j++) {
          pieces.get(j).data().release();
        }
        return;
      }
    }
    if (!assembler.complete()) {
      readRange(assembler);
      return;
    }
    assembler.close();
    ranges.remove(assembler);
    pendingReads--;
    finishIfRead();
  }

  /**
   * Hands on a block its partition still needs after checking its CRC32C, or releases it. Takes
   * over {@code data} and the bytes held for it. Returns false when the block was corrupt: the
   * location is then being read from its next server.
   */
  private boolean offer(
      long taskAttemptId, int sequence, int uncompressedLength, int crc32c, ByteBuf data) {
    if (!partition.expected.wants(taskAttemptId, sequence)) {
      pipeline.hold(-data.readableBytes());
      data.release();
      return true;
    }
    int actual = Crc32c.of(data);
    if (actual != crc32c) {
      pipeline.hold(-data.readableBytes());
      data.release();
      pipeline.serverFailed(
          this,
          new IOException(
              String.format(
                  "block %d of map attempt %d is corrupt: "
                      + "the writer computed CRC32C %08x, the bytes read give %08x",
                  sequence, taskAttemptId, crc32c, actual)));
      return false;
    }
    partition.expected.accept(taskAttemptId, sequence);
    pipeline.ready(
        new FetchedBlock(partition.id(), taskAttemptId, sequence, uncompressedLength, data));
    return true;
  }

  private void finishIfRead() {
    if (planned && pendingReads == 0 && !finished) {
      pipeline.locationRead(this);
    }
  }

  private static ByteBuf bodyOf(AbstractBodyMessage message) throws IOException {
    ManagedBuffer body = message.body();
    if (body instanceof NettyManagedBuffer netty) {
      return netty.byteBuf();
    }
    throw new IOException("unexpected body " + body + " in " + message);
  }
}
