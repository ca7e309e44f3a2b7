package io.sluice.benchmark.server;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.transport.TransportClient;
import io.sluice.server.storage.IndexEntry;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Reads partitions back the way a reducer must, and checks every block against what was
 * acknowledged: the committed block ids first, then the blocks still in memory (paged by sequence),
 * then the index and the data on disk in ranges of whole blocks, {@link #RANGES_IN_FLIGHT} ranges
 * requested ahead. Blocks seen twice (in memory, then on disk once flushed) count once.
 */
final class PartitionReader {
  static final int MEMORY_PAGE_BYTES = 4 << 20;
  static final int RANGE_BYTES = 4 << 20;
  static final int RANGES_IN_FLIGHT = 4;

  private final TransportClient connection;
  private final String appId;
  private final int shuffleId;
  private final long[] taskAttempts;
  private final ExpectedBlocks expected;
  private final ReadTally tally;

  PartitionReader(TransportClient connection, String appId, int shuffleId, long[] taskAttempts,
      ExpectedBlocks expected, ReadTally tally) {
    this.connection = connection;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.taskAttempts = taskAttempts.clone();
    this.expected = expected;
    this.tally = tally;
  }

  void read(int partition) throws Exception {
    checkCommitted(partition);
    Set<Long> seen = new HashSet<>();
    readMemory(partition, seen);
    readDisk(partition, readIndex(partition), seen);
    for (long id : expected.idsOf(partition)) {
      if (!seen.contains(id)) {
        tally.problem("block " + id + " of partition " + partition
            + " was acknowledged but is neither in memory nor on disk");
      }
    }
  }

  private void checkCommitted(int partition) throws Exception {
    GetShuffleResultResponse result = Requests.retrying(connection,
        id -> new GetShuffleResultRequest(id, appId, shuffleId, partition, taskAttempts),
        GetShuffleResultResponse.class, tally.busyRetries);
    long[] committed = result.blockIds().clone();
    Arrays.sort(committed);
    long[] acknowledged = expected.idsOf(partition);
    if (!Arrays.equals(committed, acknowledged)) {
      tally.problem("partition " + partition + " has " + committed.length
          + " committed block ids, " + acknowledged.length + " blocks were acknowledged");
    }
  }

  private void readMemory(int partition, Set<Long> seen) throws Exception {
    long after = FetchMemoryDataRequest.FROM_START;
    boolean more = true;
    while (more) {
      long from = after;
      FetchMemoryDataResponse page = Requests.retrying(connection,
          id -> new FetchMemoryDataRequest(id, appId, shuffleId, partition, from,
              MEMORY_PAGE_BYTES),
          FetchMemoryDataResponse.class, tally.busyRetries);
      try {
        ByteBuf body = bytesOf(page.body());
        int index = body.readerIndex();
        for (BlockDescriptor b : page.blocks()) {
          if (verify(partition, b.blockId(), b.length(), b.crc32c(), body, index, seen)) {
            tally.fromMemory.increment();
          }
          index += b.length();
        }
        more = page.hasMore();
        after = page.lastSequence();
      } finally {
        ReferenceCountUtil.release(page);
      }
    }
  }

  private List<IndexEntry> readIndex(int partition) throws Exception {
    FetchIndexResponse response = Requests.retrying(connection,
        id -> new FetchIndexRequest(id, appId, shuffleId, partition), FetchIndexResponse.class,
        tally.busyRetries);
    try {
      ByteBuf body = bytesOf(response.body());
      if (body.readableBytes() % IndexEntry.SIZE != 0) {
        tally.problem("index of partition " + partition + " has " + body.readableBytes()
            + " bytes, not a whole number of " + IndexEntry.SIZE + "-byte entries");
      }
      ByteBuffer entries = body.nioBuffer();
      List<IndexEntry> index = new ArrayList<>(entries.remaining() / IndexEntry.SIZE);
      while (entries.remaining() >= IndexEntry.SIZE) {
        index.add(IndexEntry.readFrom(entries));
      }
      return index;
    } finally {
      ReferenceCountUtil.release(response);
    }
  }

  private void readDisk(int partition, List<IndexEntry> index, Set<Long> seen) throws Exception {
    ArrayDeque<Range> todo = new ArrayDeque<>(ranges(index, seen));
    ArrayDeque<Fetch> window = new ArrayDeque<>();
    try {
      while (!todo.isEmpty() || !window.isEmpty()) {
        while (window.size() < RANGES_IN_FLIGHT && !todo.isEmpty()) {
          Range range = todo.poll();
          window.add(new Fetch(range, connection.request(new FetchDataRequest(
              TransportClient.nextRequestId(), appId, shuffleId, partition, range.offset(),
              range.length()), FetchDataResponse.class)));
        }
        Fetch fetch = window.poll();
        FetchDataResponse response = Requests.await(fetch.response());
        try {
          List<IndexEntry> rest = verifyRange(partition, fetch.range(), bytesOf(response.body()),
              seen);
          if (!rest.isEmpty()) {
            // The range crossed into another of the partition's files: fetch the rest from there.
            todo.addFirst(new Range(rest));
          }
        } finally {
          ReferenceCountUtil.release(response);
        }
      }
    } finally {
      for (Fetch abandoned : window) {
        abandoned.response().thenAccept(ReferenceCountUtil::release);
      }
    }
  }

  /** Verifies the range's blocks that the response holds whole; returns those it does not. */
  private List<IndexEntry> verifyRange(int partition, Range range, ByteBuf body, Set<Long> seen) {
    int received = body.readableBytes();
    if (received == 0) {
      throw new IllegalStateException("empty answer for " + range.length() + " bytes at offset "
          + range.offset() + " of partition " + partition);
    }
    List<IndexEntry> rest = new ArrayList<>();
    for (IndexEntry e : range.entries()) {
      long start = e.offset() - range.offset();
      if (start + e.length() > received) {
        rest.add(e);
      } else if (verify(partition, e.blockId(), e.length(), e.crc32c(), body,
          body.readerIndex() + (int) start, seen)) {
        tally.fromDisk.increment();
      }
    }
    return rest;
  }

  /**
   * Checks one block read back; false if it was a duplicate or wrong (a wrong one is recorded as a
   * problem).
   */
  private boolean verify(int partition, long blockId, int length, int claimedCrc, ByteBuf buf,
      int index, Set<Long> seen) {
    if (!seen.add(blockId)) {
      tally.duplicates.increment();
      return false;
    }
    BlockDescriptor want = expected.get(blockId);
    String problem = null;
    if (want == null) {
      problem = "block " + blockId + " was never acknowledged";
    } else if (want.partitionId() != partition) {
      problem = "block " + blockId + " of partition " + want.partitionId() + " was found in "
          + partition;
    } else if (want.length() != length) {
      problem = "block " + blockId + " has " + length + " bytes, " + want.length() + " were pushed";
    } else if (claimedCrc != want.crc32c()) {
      problem = "block " + blockId + " is listed with another checksum than it was pushed with";
    } else if (Crc32c.of(buf, index, length) != want.crc32c()) {
      problem = "block " + blockId + " of partition " + partition + " is corrupt";
    }
    if (problem != null) {
      tally.problem(problem);
      return false;
    }
    tally.verifiedBlocks.increment();
    tally.verifiedBytes.add(length);
    return true;
  }

  /** Runs of index entries back to back on disk, each at most {@link #RANGE_BYTES} or one block. */
  private List<Range> ranges(List<IndexEntry> index, Set<Long> seen) {
    List<Range> ranges = new ArrayList<>();
    List<IndexEntry> run = new ArrayList<>();
    long runEnd = -1;
    long runBytes = 0;
    for (IndexEntry e : index) {
      if (seen.contains(e.blockId())) {
        tally.duplicates.increment();
        continue;
      }
      if (!run.isEmpty() && (e.offset() != runEnd || runBytes + e.length() > RANGE_BYTES)) {
        ranges.add(new Range(run));
        run = new ArrayList<>();
        runBytes = 0;
      }
      run.add(e);
      runEnd = e.offset() + e.length();
      runBytes += e.length();
    }
    if (!run.isEmpty()) {
      ranges.add(new Range(run));
    }
    return ranges;
  }

  private static ByteBuf bytesOf(ManagedBuffer body) {
    if (body instanceof NettyManagedBuffer netty) {
      return netty.byteBuf();
    }
    throw new IllegalStateException("a received body should be a Netty buffer, got " + body);
  }

  /** Consecutive index entries, fetched with one request. */
  private record Range(List<IndexEntry> entries) {
    long offset() {
      return entries.get(0).offset();
    }

    int length() {
      IndexEntry last = entries.get(entries.size() - 1);
      return (int) (last.offset() + last.length() - offset());
    }
  }

  private record Fetch(Range range, CompletableFuture<FetchDataResponse> response) {}
}
