package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * Appends blocks to a data file opened with {@code O_DIRECT}, so that the bytes go from memory to
 * the device without passing through the page cache. For bytes nobody is expected to read soon (the
 * last server of a replica chain holds a partition only in case its primary is lost; with
 * {@code flush.direct all}, shuffles larger than the page cache), a buffered write costs the flush
 * thread a page-cache page per 4 KiB, allocated and copied into by the kernel, and later the
 * writeback: several times the CPU of the direct write this class makes.
 *
 * <p>Direct I/O moves whole blocks of the file system at aligned offsets from aligned memory, and
 * a partition's blocks are neither: they lie back to back at any offset. So the blocks are copied,
 * in order, into a staging buffer of the flush thread ({@link #STAGING_BYTES}, aligned), which is
 * written whenever it is full. A file that does not end on a block boundary has its last partial
 * block read back first and written again with the new bytes after it; the last partial block of
 * an append is written padded to a whole block and the file is then cut back to its true length, so
 * that the file holds exactly the bytes a buffered append would have left.
 */
public final class DirectAppender {
  /**
   * The alignment of offsets, lengths and memory: a multiple of the logical block size of every
   * device Sluice expects (512 or 4096 bytes). A file system whose block size does not divide it
   * gets buffered writes ({@link LocalDisk#takesDirectWrites}).
   */
  static final int ALIGNMENT = 4096;
  /** Bytes each flush thread stages and writes at once. */
  static final int STAGING_BYTES = 1 << 20;

  /** The direct memory of one staging buffer, its alignment slack included. */
  public static final long STAGING_MEMORY_BYTES = STAGING_BYTES + ALIGNMENT;

  private static final byte[] ZEROS = new byte[ALIGNMENT];

  private DirectAppender() {}

  /**
   * A staging buffer for a flush thread: {@link #STAGING_BYTES} of direct memory aligned to
   * {@link #ALIGNMENT}. Counted in the server's direct-memory bound per flush thread.
   */
  static ByteBuffer newStagingBuffer() {
    return ByteBuffer.allocateDirect((int) STAGING_MEMORY_BYTES).alignedSlice(ALIGNMENT);
  }

  /**
   * Appends the blocks' readable bytes (without moving their indexes) to {@code channel} from
   * {@code position}, its current length; returns the bytes appended. On failure the file may hold
   * more than {@code position} bytes: the caller cuts it back.
   */
  static long append(FileChannel channel, ByteBuffer staging, long position,
      List<? extends FlushableBlock> blocks) throws IOException {
    long writeAt = position - position % ALIGNMENT;
    int tail = (int) (position - writeAt);
    staging.clear();
    if (tail > 0) {
      readTail(channel, staging, writeAt, tail);
    }
    long appended = 0;
    for (FlushableBlock block : blocks) {
      ByteBuf data = block.data();
      int index = data.readerIndex();
      int left = data.readableBytes();
      while (left > 0) {
        int n = Math.min(left, staging.remaining());
        staging.limit(staging.position() + n);
        data.getBytes(index, staging);
        staging.limit(staging.capacity());
        index += n;
        left -= n;
        appended += n;
        if (!staging.hasRemaining()) {
          staging.flip();
          writeFully(channel, staging, writeAt);
          writeAt += staging.capacity();
          staging.clear();
        }
      }
    }
    int pending = staging.position();
    if (pending > 0) {
      int padded = (pending + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
      staging.put(ZEROS, 0, padded - pending);
      staging.flip();
      writeFully(channel, staging, writeAt);
    }
    long end = position + appended;
    if (channel.size() > end) {
      channel.truncate(end);
    }
    return appended;
  }

  /** Reads the file's last partial block, the {@code tail} bytes from {@code blockStart}. */
  private static void readTail(FileChannel channel, ByteBuffer staging, long blockStart, int tail)
      throws IOException {
    staging.limit(ALIGNMENT);
    // One aligned read of a whole block: at the end of the file it returns what is there.
    int n = channel.read(staging, blockStart);
    if (n < tail) {
      throw new EOFException("the file ends " + Math.max(n, 0) + " bytes after offset "
          + blockStart + "; " + tail + " were written");
    }
    staging.limit(staging.capacity()).position(tail);
  }

  private static void writeFully(FileChannel channel, ByteBuffer src, long position)
      throws IOException {
    while (src.hasRemaining()) {
      // A short direct write leaves the next one unaligned, which the channel refuses: the append
      // fails as a failed write does (the device is full or failing).
      position += channel.write(src, position);
    }
  }
}
