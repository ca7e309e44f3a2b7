package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * Reads a range of a data file opened with {@code O_DIRECT} into pooled direct buffers: for data
 * written around the page cache ({@link DirectAppender}), which sendfile would read from the device
 * on an event loop, one page at a time behind the kernel's read-ahead, while every other connection
 * of that loop waits. Here the device fills whole pieces of the answer at once, on a disk's read
 * threads, and the event loop only writes them.
 *
 * <p>Direct I/O wants the file position, the memory address and the length aligned to the file
 * system's block ({@link DirectAppender#ALIGNMENT} covers it, as for writes). The range is widened
 * to aligned bounds and read into pieces of {@link #PIECE_BYTES} from the allocator (a size its
 * pools keep, so no read maps fresh memory), each used from its first aligned address on; the
 * answer is a composite of the pieces cut to the range.
 */
public final class DirectRead {
  /**
   * Whether direct reads can be made here: they need the buffers' memory addresses, which Netty has
   * only with its access to {@code sun.misc.Unsafe} (bin/start-server.sh grants it).
   */
  public static final boolean SUPPORTED = PlatformDependent.hasUnsafe();

  /** One pooled buffer of the answer; the allocator's pools keep buffers of this size. */
  static final int PIECE_BYTES = 1 << 20;

  /** Bytes of file a piece takes: the rest goes to aligning its start. */
  private static final int PIECE_SPAN = PIECE_BYTES - DirectAppender.ALIGNMENT;

  private DirectRead() {}

  /**
   * The direct memory a read of {@code length} bytes may take: whole pieces, for the range widened
   * to aligned bounds.
   */
  public static long memoryFor(int length) {
    long span = (long) length + 2L * DirectAppender.ALIGNMENT;
    return (span + PIECE_SPAN - 1) / PIECE_SPAN * PIECE_BYTES;
  }

  /**
   * Bytes {@code [offset, offset + length)} of {@code file}, which must have been opened with
   * {@code O_DIRECT}. Blocks until the device has read them. The caller owns the returned buffer.
   *
   * @throws EOFException if the file ends before the range does
   */
  static ByteBuf read(FileChannel file, long offset, int length, ByteBufAllocator allocator)
      throws IOException {
    long end = offset + length;
    CompositeByteBuf answer = allocator.compositeDirectBuffer(Integer.MAX_VALUE);
    boolean done = false;
    try {
      long position = alignDown(offset);
      while (position < end) {
        int span = (int) Math.min(PIECE_SPAN, alignUp(end) - position);
        answer.addComponent(true, piece(file, position, span, offset, end, allocator));
        position += span;
      }
      done = true;
      return answer;
    } finally {
      if (!done) {
        answer.release();
      }
    }
  }

  /**
   * A piece holding the part of {@code [offset, end)} among the {@code span} bytes of the file at
   * {@code position}, read from the piece's first aligned address on.
   */
  private static ByteBuf piece(
      FileChannel file, long position, int span, long offset, long end, ByteBufAllocator allocator)
      throws IOException {
    ByteBuf piece = allocator.directBuffer(PIECE_BYTES, PIECE_BYTES);
    try {
      int lead = (int) (alignUp(piece.memoryAddress()) - piece.memoryAddress());
      int got = readFully(file, piece, lead, span, position);
      long from = Math.max(position, offset);
      long to = Math.min(position + got, end);
      if (to < Math.min(position + span, end)) {
        throw new EOFException(
            "the file ends at byte " + (position + got) + ", before the range's end " + end);
      }
      piece.setIndex(lead + (int) (from - position), lead + (int) (to - position));
      return piece;
    } catch (IOException | RuntimeException e) {
      piece.release();
      throw e;
    }
  }

  /**
   * Reads up to {@code span} bytes at {@code position} into {@code piece} from index {@code lead};
   * returns how many, fewer only where the file ends.
   */
  private static int readFully(FileChannel file, ByteBuf piece, int lead, int span, long position)
      throws IOException {
    var target = piece.nioBuffer(lead, span);
    int got = 0;
    while (got < span) {
      int n = file.read(target, position + got);
      if (n <= 0) {
        break;
      }
      got += n;
      if (n % DirectAppender.ALIGNMENT != 0) {
        // Short of a whole block: the file ends here (and a read on from it would be unaligned).
        break;
      }
    }
    return got;
  }

  private static long alignDown(long value) {
    return value - value % DirectAppender.ALIGNMENT;
  }

  private static long alignUp(long value) {
    return alignDown(value + DirectAppender.ALIGNMENT - 1);
  }
}
