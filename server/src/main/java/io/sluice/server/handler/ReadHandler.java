package io.sluice.server.handler;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportOptions;
import io.sluice.server.ServerOptions;
import io.sluice.server.memory.ReadBudget;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.shuffle.RequestRejectedException;
import io.sluice.server.shuffle.ShuffleState;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.storage.IndexPage;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.ReadSnapshot;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves reads. Flushed data leaves as file segments (sendfile, or chunked under TLS) and holds no
 * memory; in-memory blocks leave as retained slices charged to the read budget until written. Data
 * on the HDFS tier is read on the tier's read threads (never an event loop) into a buffer charged
 * to the read budget until written; so is data written to a local disk with direct I/O, read
 * directly on that disk's read threads into read memory's buffers for direct reads, when they have
 * room and the threads a place in their queue (sendfile otherwise). A reader reads memory first and
 * then the index, so every acknowledged block is seen at least once. No answer is larger than the
 * maximum frame size, nor than what the reader asked for: memory reads and index pages are cut to
 * fit both, and a data range (or, for readers before protocol 5, a whole index) that cannot fit is
 * refused for good.
 */
final class ReadHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ReadHandler.class);
  private final ShuffleStore store;
  private final ReadBudget readBudget;
  private final ServerMetrics metrics;

  /** Threads that read the HDFS tier; null without one. */
  private final Executor remoteReads;

  private final int maxFrameSize;

  ReadHandler(
      ShuffleStore store,
      ReadBudget readBudget,
      ServerMetrics metrics,
      Executor remoteReads,
      int maxFrameSize) {
    this.store = store;
    this.readBudget = readBudget;
    this.metrics = metrics;
    this.remoteReads = remoteReads;
    this.maxFrameSize = maxFrameSize;
  }

  /** Bytes of a frame beyond its message: the type byte. */
  private static final int TYPE_BYTE = 1;

  void fetchIndex(TransportChannel channel, FetchIndexRequest req, ByteBufAllocator alloc) {
    PartitionFiles files = files(req.appId(), req.shuffleId(), req.partitionId());
    if (files == null) {
      channel.respond(
          FetchIndexResponse.ok(req.requestId(), 0, new NettyManagedBuffer(Unpooled.EMPTY_BUFFER)));
      return;
    }
    // One snapshot for the length, the index and where it lives: a flush that publishes meanwhile
    // can neither add entries beyond the length nor move the read onto HDFS behind our back.
    ReadSnapshot view = files.snapshot();
    // Checked before the index is read or its memory reserved: an index that cannot be answered
    // in one frame must not first take read memory (beyond read.buffer.capacity, where nothing
    // else is reserved) or an event loop's time to assemble.
    if (view.indexBytes() > maxFrameSize) {
      throw indexTooLarge(req.partitionId(), view.indexBytes());
    }
    if (remoteReads != null && view.indexIsRemote()) {
      long reserved = view.indexBytes();
      if (!readBudget.tryReserve(reserved)) {
        throw readMemorySpent();
      }
      readRemotely(
          channel, req.requestId(), reserved, () -> answerIndex(channel, req, view, alloc));
      return;
    }
    if (view.indexReadsIntoMemory()) {
      // Several local files: their entries are joined in a buffer, charged to read memory until
      // written. (Readers of protocol 5 read pages, segments of one file each, instead.)
      long reserved = view.indexBytes();
      if (!readBudget.tryReserve(reserved)) {
        throw readMemorySpent();
      }
      try {
        answerIndex(channel, req, view, alloc).addListener(f -> readBudget.release(reserved));
      } catch (RuntimeException e) {
        readBudget.release(reserved);
        throw e;
      }
      return;
    }
    answerIndex(channel, req, view, alloc);
  }

  private ChannelFuture answerIndex(
      TransportChannel channel, FetchIndexRequest req, ReadSnapshot view, ByteBufAllocator alloc) {
    long dataLength = view.dataLength();
    ManagedBuffer index;
    try {
      index = view.index(alloc);
    } catch (IOException e) {
      throw dataNotFound(req.partitionId(), e);
    }
    FetchIndexResponse answer = FetchIndexResponse.ok(req.requestId(), dataLength, index);
    long frame = TYPE_BYTE + answer.encodedLength() + index.size();
    if (frame > maxFrameSize) {
      answer.release();
      throw indexTooLarge(req.partitionId(), index.size());
    }
    metrics.read("index", index.size());
    return channel.respond(answer);
  }

  private RequestRejectedException indexTooLarge(int partitionId, long indexBytes) {
    return new RequestRejectedException(
        StatusCode.INVALID_REQUEST,
        "the index of partition "
            + partitionId
            + " ("
            + indexBytes
            + " bytes) does not fit one frame of "
            + maxFrameSize
            + " bytes ("
            + TransportOptions.MAX_FRAME_SIZE.key()
            + ", on this server and its readers)");
  }

  /**
   * A page of the index: entries of one file (a segment of a local index file, sent with sendfile;
   * read on the HDFS tier's threads into read memory when the file is there), as many as the
   * reader's maxBytes and this server's frame both take.
   */
  void fetchIndexPage(TransportChannel channel, FetchIndexPageRequest req, ByteBufAllocator alloc) {
    PartitionFiles files = files(req.appId(), req.shuffleId(), req.partitionId());
    if (req.fromEntry() < 0) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST, "fromEntry must not be negative, got " + req.fromEntry());
    }
    long header =
        TYPE_BYTE
            + FetchIndexPageResponse.ok(
                    req.requestId(), 0, 0, false, new NettyManagedBuffer(Unpooled.EMPTY_BUFFER))
                .encodedLength();
    int maxEntries = (int) (Math.min(req.maxBytes(), maxFrameSize - header) / IndexEntry.SIZE);
    if (maxEntries < 1) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "maxBytes "
              + req.maxBytes()
              + " leaves no room for one index entry of "
              + IndexEntry.SIZE
              + " bytes");
    }
    if (files == null) {
      channel.respond(
          FetchIndexPageResponse.ok(
              req.requestId(),
              0,
              req.fromEntry(),
              false,
              new NettyManagedBuffer(Unpooled.EMPTY_BUFFER)));
      return;
    }
    ReadSnapshot view = files.snapshot();
    IndexPage page = view.page(req.fromEntry(), maxEntries);
    if (remoteReads != null && page.isRemote()) {
      long reserved = page.bytes();
      if (!readBudget.tryReserve(reserved)) {
        throw readMemorySpent();
      }
      readRemotely(
          channel,
          req.requestId(),
          reserved,
          () -> answerIndexPage(channel, req, view, page, maxEntries, alloc));
      return;
    }
    answerIndexPage(channel, req, view, page, maxEntries, alloc);
  }

  private ChannelFuture answerIndexPage(
      TransportChannel channel,
      FetchIndexPageRequest req,
      ReadSnapshot view,
      IndexPage page,
      int maxEntries,
      ByteBufAllocator alloc) {
    ManagedBuffer entries;
    try {
      entries = page.read(alloc);
    } catch (IOException e) {
      // The read found a disk that fails (and took it out): page on past its file, as a whole
      // index is answered without it, rather than fail the reader for blocks it may not need.
      IndexPage past = view.page(req.fromEntry(), maxEntries);
      if (!past.sameFileAs(page) && !past.isRemote()) {
        return answerIndexPage(channel, req, view, past, maxEntries, alloc);
      }
      throw dataNotFound(req.partitionId(), e);
    }
    metrics.read("index", entries.size());
    return channel.respond(
        FetchIndexPageResponse.ok(
            req.requestId(), page.dataLength(), page.nextEntry(), page.hasMore(), entries));
  }

  void fetchData(TransportChannel channel, FetchDataRequest req, ByteBufAllocator alloc) {
    PartitionFiles files = files(req.appId(), req.shuffleId(), req.partitionId());
    // One snapshot for the length, where the range lives and its bytes: a flush that publishes
    // meanwhile, or a move to HDFS, cannot make them disagree.
    ReadSnapshot snapshot = files == null ? null : files.snapshot();
    if (req.offset() < 0
        || req.length() < 0
        || snapshot == null
        || req.offset() > snapshot.dataLength() - req.length()) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "range ["
              + req.offset()
              + ", +"
              + req.length()
              + ") is outside partition "
              + req.partitionId()
              + "'s "
              + (snapshot == null ? 0 : snapshot.dataLength())
              + " bytes on disk");
    }
    long header =
        TYPE_BYTE
            + FetchDataResponse.ok(req.requestId(), new NettyManagedBuffer(Unpooled.EMPTY_BUFFER))
                .encodedLength();
    if (header + req.length() > maxFrameSize) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "a range of "
              + req.length()
              + " bytes does not fit one frame of "
              + maxFrameSize
              + " bytes ("
              + TransportOptions.MAX_FRAME_SIZE.key()
              + "); ask for at most "
              + (maxFrameSize - header)
              + " bytes per request");
    }
    if (remoteReads != null && snapshot.isRemote(req.offset())) {
      if (!readBudget.tryReserve(req.length())) {
        throw readMemorySpent();
      }
      // A partition deleted while the read waited fails there, its file gone.
      readRemotely(
          channel,
          req.requestId(),
          req.length(),
          () ->
              answerData(
                  channel, req, "hdfs", () -> snapshot.data(req.offset(), req.length(), alloc)));
      return;
    }
    Executor directReads = snapshot.directReadThreads(req.offset());
    if (directReads != null
        && readOffLoop(
            channel,
            req.requestId(),
            0,
            directReads,
            () ->
                judgeSendFailure(
                    answerData(
                        channel,
                        req,
                        "disk",
                        () ->
                            snapshot.directData(
                                req.offset(), req.length(), readBudget.directReads(), alloc)),
                    files,
                    req.offset()))) {
      return;
    }
    // Data in the page cache, or written directly while the disk's read threads have a queue as
    // long as they take (sendfile then, which holds no memory).
    ManagedBuffer data;
    try {
      data = snapshot.data(req.offset(), req.length(), alloc);
    } catch (IOException e) {
      throw dataNotFound(req.partitionId(), e);
    }
    metrics.read("disk", data.size());
    judgeSendFailure(
        channel.respond(FetchDataResponse.ok(req.requestId(), data)), files, req.offset());
  }

  /** Has a failed send of local data judged, as a failing disk shows there first. */
  private static ChannelFuture judgeSendFailure(
      ChannelFuture sent, PartitionFiles files, long offset) {
    return sent.addListener(
        f -> {
          if (!f.isSuccess() && f.cause() instanceof IOException e) {
            files.sendFailed(offset, e);
          }
        });
  }

  /** A read of data that blocks, off the event loop. */
  private interface BlockingRead {
    ManagedBuffer read() throws IOException;
  }

  /** Answers {@code req} with what {@code read} reads, counted as read from {@code source}. */
  private ChannelFuture answerData(
      TransportChannel channel, FetchDataRequest req, String source, BlockingRead read) {
    ManagedBuffer data;
    try {
      data = read.read();
    } catch (IOException e) {
      throw dataNotFound(req.partitionId(), e);
    }
    metrics.read(source, data.size());
    return channel.respond(FetchDataResponse.ok(req.requestId(), data));
  }

  /** Runs {@code read} on the HDFS tier's threads, as {@link #readOffLoop} does. */
  private void readRemotely(
      TransportChannel channel, long requestId, long reserved, Supplier<ChannelFuture> read) {
    if (!readOffLoop(channel, requestId, reserved, remoteReads, read)) {
      channel.respond(
          StatusResponse.error(requestId, StatusCode.SHUTTING_DOWN, "server is stopping"));
    }
  }

  /**
   * Runs {@code read}, which blocks, on {@code threads} rather than the event loop; {@code
   * reserved} bytes of the read budget, taken by the caller, are given back once the answer is
   * written (or the read failed). Returns false, the reservation given back, when the threads took
   * no more work (stopping, or a full queue): the caller answers then.
   */
  private boolean readOffLoop(
      TransportChannel channel,
      long requestId,
      long reserved,
      Executor threads,
      Supplier<ChannelFuture> read) {
    AtomicBoolean released = new AtomicBoolean();
    Runnable release =
        () -> {
          if (released.compareAndSet(false, true)) {
            readBudget.release(reserved);
          }
        };
    try {
      threads.execute(
          () -> {
            try {
              read.get().addListener(f -> release.run());
            } catch (RequestRejectedException e) {
              release.run();
              channel.respond(StatusResponse.error(requestId, e.status(), e.getMessage()));
            } catch (Throwable e) {
              // Errors too (Netty's OutOfDirectMemoryError): the reservation must come back and the
              // reader must get an answer.
              release.run();
              LOG.error("Read {} from {} failed", requestId, channel.remoteAddress(), e);
              channel.respond(
                  StatusResponse.error(requestId, StatusCode.INTERNAL_ERROR, e.toString()));
            }
          });
    } catch (RejectedExecutionException e) {
      release.run();
      return false;
    }
    return true;
  }

  private RequestRejectedException readMemorySpent() {
    return new RequestRejectedException(
        StatusCode.BUSY,
        "read memory is in use ("
            + readBudget.usedBytes()
            + " of "
            + readBudget.capacity()
            + " bytes, "
            + ServerOptions.READ_BUFFER_CAPACITY.key()
            + "); retry later");
  }

  void fetchMemory(TransportChannel channel, FetchMemoryDataRequest req, ByteBufAllocator alloc) {
    ShuffleState shuffle = store.shuffle(req.appId(), req.shuffleId());
    ShuffleStore.checkPartition(shuffle, req.partitionId());
    if (req.maxBytes() <= 0) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST, "maxBytes must be positive, got " + req.maxBytes());
    }
    PartitionState partition = shuffle.existingPartition(req.partitionId());
    if (partition == null) {
      channel.respond(
          FetchMemoryDataResponse.ok(
              req.requestId(),
              false,
              req.afterSequence(),
              List.of(),
              new NettyManagedBuffer(Unpooled.EMPTY_BUFFER)));
      return;
    }
    long[] attempts = req.taskAttemptIds().clone();
    Arrays.sort(attempts);
    long header =
        TYPE_BYTE
            + FetchMemoryDataResponse.ok(
                    req.requestId(),
                    false,
                    0,
                    List.of(),
                    new NettyManagedBuffer(Unpooled.EMPTY_BUFFER))
                .encodedLength();
    PartitionState.MemoryRead read =
        partition.readMemory(
            req.afterSequence(), Math.min(req.maxBytes(), maxFrameSize - header), attempts, alloc);
    long size = read.data().readableBytes();
    if (!readBudget.tryReserve(size)) {
      read.data().release();
      throw readMemorySpent();
    }
    metrics.read("memory", size);
    channel
        .respond(
            FetchMemoryDataResponse.ok(
                req.requestId(),
                read.hasMore(),
                read.lastSequence(),
                read.blocks(),
                new NettyManagedBuffer(read.data())))
        .addListener(f -> readBudget.release(size));
  }

  /** The partition's files cannot be read (a failed disk, files removed under the server). */
  private static RequestRejectedException dataNotFound(int partitionId, IOException e) {
    return new RequestRejectedException(
        StatusCode.DATA_NOT_FOUND,
        "partition " + partitionId + "'s files cannot be read: " + e.getMessage());
  }

  private PartitionFiles files(String appId, int shuffleId, int partitionId) {
    ShuffleState shuffle = store.shuffle(appId, shuffleId);
    ShuffleStore.checkPartition(shuffle, partitionId);
    PartitionState partition = shuffle.existingPartition(partitionId);
    return partition == null ? null : partition.files();
  }
}
