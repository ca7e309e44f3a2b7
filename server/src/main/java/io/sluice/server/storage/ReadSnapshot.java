package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.server.memory.ReadBuffers;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * What readers of a partition see at one moment: its generations, its data length and block count,
 * all of the same append. Immutable: an append replaces the partition's snapshot only after both
 * its data and its index entries are written, so a reader never sees a block whose bytes or index
 * entry are incomplete. Reads the index (whole, or a page at a time) and ranges of the data from
 * those generations, answering with file segments on local disks (sent with sendfile) and with
 * buffers read from HDFS segments, or from local files written with direct I/O ({@link
 * #directData}).
 */
public final class ReadSnapshot {
  private final ReadContext context;
  private final List<PartitionGeneration> generations;
  private final long dataLength;
  private final int blockCount;

  ReadSnapshot(
      ReadContext context, List<PartitionGeneration> generations, long dataLength, int blockCount) {
    this.context = context;
    this.generations = List.copyOf(generations);
    this.dataLength = dataLength;
    this.blockCount = blockCount;
  }

  /** Nothing readable. */
  static ReadSnapshot empty(ReadContext context) {
    return new ReadSnapshot(context, List.of(), 0, 0);
  }

  List<PartitionGeneration> generations() {
    return generations;
  }

  /** Logical bytes readable: the index's entries point into them. */
  public long dataLength() {
    return dataLength;
  }

  public int blockCount() {
    return blockCount;
  }

  /** Whether some of the index's entries live in segments on the HDFS tier. */
  public boolean indexIsRemote() {
    return generations.stream().anyMatch(PartitionGeneration::isRemote);
  }

  /**
   * Whether {@link #index} assembles the index in a buffer (several files, or files on HDFS) rather
   * than answering with a segment of one local index file.
   */
  public boolean indexReadsIntoMemory() {
    List<PartitionGeneration> readable = readableGenerations();
    return readable.size() > 1 || (readable.size() == 1 && readable.get(0).isRemote());
  }

  /** The index's size at most (entries on a disk that failed for reads are left out). */
  public long indexBytes() {
    return (long) blockCount * IndexEntry.SIZE;
  }

  /**
   * The index entries of all readable blocks in order. With one generation (the usual case) a
   * segment of its index file, sent with sendfile; with several, the entries read into one direct
   * buffer from {@code allocator}. The caller owns the returned buffer.
   */
  public ManagedBuffer index(ByteBufAllocator allocator) throws IOException {
    List<PartitionGeneration> before = readableGenerations();
    try {
      return index(before, allocator);
    } catch (IOException e) {
      // Reading found a disk that fails: answer with what the other disks hold, as later reads
      // will, rather than fail this reader for blocks it may not even need.
      List<PartitionGeneration> after = readableGenerations();
      if (after.size() < before.size()) {
        return index(after, allocator);
      }
      throw e;
    }
  }

  /**
   * The page of at most {@code maxEntries} entries from entry number {@code fromEntry} on. Entries
   * are numbered across the partition's generations in order, lost ones included, so a number means
   * the same entry in every snapshot of this server process: generations only ever grow at the end
   * (a restart restores only the generations that were readable, and numbers anew). A page lies
   * within one generation; the entries of a generation on a disk that failed for reads are skipped
   * (those blocks are lost here, see {@link #readableGenerations}).
   */
  public IndexPage page(int fromEntry, int maxEntries) {
    if (fromEntry < 0 || maxEntries < 1) {
      throw new IllegalArgumentException(
          "an index page from entry " + fromEntry + " of " + maxEntries + " entries");
    }
    int first = 0;
    for (PartitionGeneration g : generations) {
      int end = first + g.blockCount();
      if (fromEntry < end && !g.isLostDisk()) {
        int from = Math.max(fromEntry, first);
        int count = Math.min(maxEntries, end - from);
        return new IndexPage(
            context, dataLength, g, from - first, count, from + count, from + count < blockCount);
      }
      first = end;
    }
    return new IndexPage(context, dataLength, null, 0, 0, Math.max(fromEntry, blockCount), false);
  }

  /**
   * Bytes {@code [offset, offset + length)} of the partition's logical data, as a segment of the
   * one file that holds {@code offset}. The segment is shorter than {@code length} when the range
   * goes past the end of that file (a generation); the caller reads on from where it ends. A
   * segment on HDFS is read into a buffer from {@code allocator} (blocking: call it off the event
   * loop when {@link #isRemote} says so).
   *
   * @throws IllegalArgumentException if the range is not within {@code [0, dataLength()]}
   */
  public ManagedBuffer data(long offset, int length, ByteBufAllocator allocator)
      throws IOException {
    PartitionGeneration g = generationOf(offset, length);
    if (g == null) {
      return new NettyManagedBuffer(Unpooled.EMPTY_BUFFER);
    }
    int segment = (int) Math.min(length, g.end() - offset);
    if (g.isRemote()) {
      ByteBuf bytes = allocator.directBuffer(segment, segment);
      try {
        context.hdfs().read(g.remoteFile(), offset - g.start(), segment, bytes);
        return new NettyManagedBuffer(bytes);
      } catch (IOException | RuntimeException e) {
        bytes.release();
        throw e;
      }
    }
    context.checkReadable(g, g.dataFile(), offset - g.start() + segment);
    return new FileSegmentManagedBuffer(g.dataFile(), offset - g.start(), segment);
  }

  /**
   * The threads that read the bytes at {@code offset} with {@link #directData}, when they were
   * written with direct I/O to a local disk (the page cache holds none of them, so sendfile would
   * wait for the device on an event loop); null when {@link #data} is the way to read them.
   */
  public Executor directReadThreads(long offset) {
    PartitionGeneration g = generationAt(offset);
    return g != null && g.direct() && !g.isRemote() ? g.disk().readExecutor() : null;
  }

  /**
   * As {@link #data}, for bytes on a local disk read with direct I/O into buffers of {@code
   * buffers} ({@link DirectRead}); when read memory has no room for them, or the bytes are not on a
   * local disk, exactly what {@link #data} answers. Blocks until the device has read them: call it
   * on {@link #directReadThreads}. A read that fails is judged as sendfile's failures are (it may
   * take the disk out of rotation).
   */
  public ManagedBuffer directData(
      long offset, int length, ReadBuffers buffers, ByteBufAllocator allocator) throws IOException {
    PartitionGeneration g = generationOf(offset, length);
    if (g == null || g.isRemote()) {
      return data(offset, length, allocator);
    }
    int segment = (int) Math.min(length, g.end() - offset);
    long position = offset - g.start();
    List<ByteBuf> pieces;
    try {
      pieces = buffers.tryTake(DirectRead.piecesFor(position, segment));
    } catch (OutOfMemoryError e) {
      // Netty's count of direct memory is spent (tryTake gave back what it took): sendfile needs
      // none, where failing would fail the reader for good.
      pieces = null;
    }
    if (pieces == null) {
      return data(offset, length, allocator);
    }
    FileChannel file;
    try {
      file = context.io().openForDirectRead(g.dataFile());
    } catch (IOException e) {
      pieces.forEach(ByteBuf::release);
      context.readFailed().accept(g, e);
      throw e;
    } catch (RuntimeException e) {
      pieces.forEach(ByteBuf::release);
      throw e;
    }
    ByteBuf bytes = null;
    try (file) {
      bytes = DirectRead.read(file, position, segment, pieces);
    } catch (IOException e) {
      // Also a close that failed after the read: the bytes are not answered then.
      if (bytes != null) {
        bytes.release();
      }
      context.readFailed().accept(g, e);
      throw e;
    }
    return new NettyManagedBuffer(bytes);
  }

  /**
   * The generation that holds {@code offset}, for a read of {@code length} bytes there; null when
   * there is none.
   *
   * @throws IllegalArgumentException if the range is not within {@code [0, dataLength()]}
   * @throws IOException if the bytes were in a file lost before the last restart
   */
  private PartitionGeneration generationOf(long offset, int length) throws IOException {
    if (offset < 0 || length < 0 || offset > dataLength - length) {
      throw new IllegalArgumentException(
          "range of "
              + length
              + " bytes at offset "
              + offset
              + " is outside the "
              + dataLength
              + " readable bytes of "
              + context.partition());
    }
    PartitionGeneration g = generationAt(offset);
    if (g != null && offset < g.start()) {
      throw new IOException(
          "bytes at offset "
              + offset
              + " of "
              + context.partition()
              + " were in a file "
              + "lost before this server's last restart");
    }
    return g;
  }

  /**
   * Whether the bytes at {@code offset} live on HDFS, so that reading them blocks on the network
   * and takes memory: {@link #data} then reads them into a buffer rather than answering with a file
   * segment. (Where the index lives: {@link #indexIsRemote}.)
   */
  public boolean isRemote(long offset) {
    PartitionGeneration g = generationAt(offset);
    return g != null && g.isRemote();
  }

  /** The generation holding {@code offset} (the last one at the end); null when there is none. */
  PartitionGeneration generationAt(long offset) {
    for (int i = 0; i < generations.size(); i++) {
      PartitionGeneration g = generations.get(i);
      if (offset < g.end() || i == generations.size() - 1) {
        return g;
      }
    }
    return null;
  }

  /**
   * The generations not on a disk that failed for reads. The blocks of the others are lost: the
   * index leaves them out, so that readers count them missing (and fall back to a replica, or have
   * the map stage run again) while the blocks written elsewhere, by the map stage's next run
   * included, stay readable.
   */
  List<PartitionGeneration> readableGenerations() {
    for (PartitionGeneration g : generations) {
      if (g.isLostDisk()) {
        return generations.stream().filter(x -> !x.isLostDisk()).toList();
      }
    }
    return generations;
  }

  private ManagedBuffer index(List<PartitionGeneration> readable, ByteBufAllocator allocator)
      throws IOException {
    if (readable.isEmpty()) {
      return new NettyManagedBuffer(Unpooled.EMPTY_BUFFER);
    }
    if (readable.size() == 1 && !readable.get(0).isRemote()) {
      PartitionGeneration only = readable.get(0);
      context.checkReadable(only, only.indexFile(), only.indexLength());
      return new FileSegmentManagedBuffer(only.indexFile(), 0, only.indexLength());
    }
    return readIndexes(readable, allocator);
  }

  private ManagedBuffer readIndexes(List<PartitionGeneration> readable, ByteBufAllocator allocator)
      throws IOException {
    long total = 0;
    for (PartitionGeneration g : readable) {
      total += g.indexLength();
    }
    if (total > Integer.MAX_VALUE) {
      throw new IOException(
          "index of " + context.partition() + " is too large for one buffer: " + total + " bytes");
    }
    ByteBuf entries = allocator.directBuffer((int) total, (int) total);
    try {
      for (PartitionGeneration g : readable) {
        if (g.isRemote()) {
          // The segment's index entries follow its data.
          context.hdfs().read(g.remoteFile(), g.dataLength(), (int) g.indexLength(), entries);
          continue;
        }
        try (FileChannel channel = context.io().openForRead(g.indexFile())) {
          int wanted = (int) g.indexLength();
          long position = 0;
          while (position < wanted) {
            int n = entries.writeBytes(channel, position, (int) (wanted - position));
            if (n < 0) {
              throw new EOFException(
                  g.indexFile() + " ends at " + position + " bytes, " + wanted + " were written");
            }
            position += n;
          }
        } catch (IOException e) {
          context.readFailed().accept(g, e);
          throw e;
        }
      }
      return new NettyManagedBuffer(entries);
    } catch (IOException | RuntimeException e) {
      entries.release();
      throw e;
    }
  }
}
