package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.server.memory.ReadBuffers;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * Reads a range of a data file opened with {@code O_DIRECT} into read memory's aligned buffers
 * ({@link ReadBuffers}): for data written around the page cache ({@link DirectAppender}), which
 * sendfile would read from the device on an event loop, one page at a time behind the kernel's
 * read-ahead, while every other connection of that loop waits. Here the device fills whole buffers
 * of the answer at once, on a disk's read threads, and the event loop only writes them.
 *
 * <p>Direct I/O wants the file position, the memory address and the length aligned to the file
 * system's block ({@link DirectAppender#ALIGNMENT} covers it, as for writes): the range is widened
 * to aligned bounds, read into buffers that start aligned, and the answer is a composite of the
 * buffers cut to the range.
 */
public final class DirectRead {
  private static final int PIECE = ReadBuffers.PIECE_BYTES;

  private DirectRead() {}

  /** The buffers a read of {@code [offset, offset + length)} takes. */
  static int piecesFor(long offset, int length) {
    long span = alignUp(offset + length) - alignDown(offset);
    return (int) ((span + PIECE - 1) / PIECE);
  }

  /**
   * Bytes {@code [offset, offset + length)} of {@code file}, which must have been opened with
   * {@code O_DIRECT}, read into {@code pieces} ({@link #piecesFor} of them, empty, aligned), which
   * the returned buffer then owns: it is released, and so are they, also when this throws. Blocks
   * until the device has read them.
   *
   * @throws EOFException if the file ends before the range does
   */
  static ByteBuf read(FileChannel file, long offset, int length, List<ByteBuf> pieces)
      throws IOException {
    if (pieces.size() != piecesFor(offset, length)) {
      pieces.forEach(ByteBuf::release);
      throw new IllegalArgumentException(
          pieces.size() + " buffers for a read of " + piecesFor(offset, length));
    }
    long end = offset + length;
    CompositeByteBuf answer = Unpooled.compositeBuffer(Math.max(1, pieces.size()));
    // The pieces before this one are the answer's, or released.
    int next = 0;
    try {
      long position = alignDown(offset);
      while (next < pieces.size()) {
        ByteBuf piece = pieces.get(next++);
        if (position >= end) {
          // A zero-length range at an aligned offset reads nothing.
          piece.release();
          continue;
        }
        int span = (int) Math.min(PIECE, alignUp(end) - position);
        try {
          fill(file, piece, position, span, offset, end);
        } catch (Throwable e) {
          piece.release();
          throw e;
        }
        // Added once filled: a composite takes its components' bounds as they are when added.
        answer.addComponent(true, piece);
        position += span;
      }
      return answer;
    } catch (Throwable e) {
      answer.release();
      for (int i = next; i < pieces.size(); i++) {
        pieces.get(i).release();
      }
      throw e;
    }
  }

  /**
   * Reads the {@code span} bytes of the file at {@code position} into {@code piece} and leaves it
   * holding their part within {@code [offset, end)}.
   */
  private static void fill(
      FileChannel file, ByteBuf piece, long position, int span, long offset, long end)
      throws IOException {
    var target = piece.nioBuffer(0, span);
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
    long from = Math.max(position, offset);
    long to = Math.min(position + got, end);
    if (to < Math.min(position + span, end)) {
      throw new EOFException(
          "the file ends at byte " + (position + got) + ", before the range's end " + end);
    }
    piece.setIndex((int) (from - position), (int) (to - position));
  }

  private static long alignDown(long value) {
    return value - value % DirectAppender.ALIGNMENT;
  }

  private static long alignUp(long value) {
    return alignDown(value + DirectAppender.ALIGNMENT - 1);
  }
}
