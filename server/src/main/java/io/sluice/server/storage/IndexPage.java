package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;

/**
 * One page of a partition's index, cut from a {@link ReadSnapshot}: {@code count} entries of one
 * generation from its {@code firstInGeneration}-th, and the entry number a reader asks from next.
 */
public final class IndexPage {
  private final ReadContext context;
  private final long dataLength;
  private final PartitionGeneration generation;
  private final int firstInGeneration;
  private final int count;
  private final int nextEntry;
  private final boolean hasMore;

  IndexPage(
      ReadContext context,
      long dataLength,
      PartitionGeneration generation,
      int firstInGeneration,
      int count,
      int nextEntry,
      boolean hasMore) {
    this.context = context;
    this.dataLength = dataLength;
    this.generation = generation;
    this.firstInGeneration = firstInGeneration;
    this.count = count;
    this.nextEntry = nextEntry;
    this.hasMore = hasMore;
  }

  /** Logical bytes of the partition's data when the page was cut; its entries lie within. */
  public long dataLength() {
    return dataLength;
  }

  public int nextEntry() {
    return nextEntry;
  }

  public boolean hasMore() {
    return hasMore;
  }

  /** Whether both pages are of the same file (or both empty). */
  public boolean sameFileAs(IndexPage other) {
    return generation == other.generation;
  }

  /** The page's size in bytes. */
  public long bytes() {
    return (long) count * IndexEntry.SIZE;
  }

  /** Whether the entries live in a segment on the HDFS tier (read blocking, into memory). */
  public boolean isRemote() {
    return generation != null && generation.isRemote();
  }

  /**
   * The entries: on a local disk a segment of the index file (sent with sendfile: no memory and no
   * read on the calling thread beyond a size check), on HDFS read into a buffer from {@code
   * allocator}. The caller owns the returned buffer.
   */
  public ManagedBuffer read(ByteBufAllocator allocator) throws IOException {
    if (count == 0) {
      return new NettyManagedBuffer(Unpooled.EMPTY_BUFFER);
    }
    long offset = (long) firstInGeneration * IndexEntry.SIZE;
    int length = count * IndexEntry.SIZE;
    PartitionGeneration g = generation;
    if (g.isRemote()) {
      ByteBuf entries = allocator.directBuffer(length, length);
      try {
        // The segment's index entries follow its data.
        context.hdfs().read(g.remoteFile(), g.dataLength() + offset, length, entries);
        return new NettyManagedBuffer(entries);
      } catch (IOException | RuntimeException e) {
        entries.release();
        throw e;
      }
    }
    context.checkReadable(g, g.indexFile(), offset + length);
    return new FileSegmentManagedBuffer(g.indexFile(), offset, length);
  }
}
