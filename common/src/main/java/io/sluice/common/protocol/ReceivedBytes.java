package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.util.ArrayDeque;

/**
 * The bytes a connection received and its {@link FrameDecoder} has not handed on: the buffers the
 * socket read into, queued as they are, and cut into frames without copying. Owns one reference to
 * each queued buffer. Tracks the memory the buffers hold beside the bytes they hold, so that a peer
 * sending tiny segments cannot pin much more than it sent: {@link #wasteful} says when the buffers
 * should be {@linkplain #merge merged}. Event loop only.
 */
final class ReceivedBytes {
  /** Capacity beyond 1.5 times the queued bytes that is tolerated before queued buffers merge. */
  static final int MAX_UNMERGED_SLACK = 64 * 1024;

  private final ArrayDeque<ByteBuf> pieces = new ArrayDeque<>();
  private long readable;

  /** Sum of the capacities of the queued buffers: the memory they hold. */
  private long capacity;

  /** The last queued buffer when it was made by merging and later bytes of a frame go into it. */
  private ByteBuf mergeTarget;

  /** Bytes queued. */
  long readableBytes() {
    return readable;
  }

  /** Number of buffers queued. */
  int pieceCount() {
    return pieces.size();
  }

  /** The first queued buffer, or null. */
  ByteBuf first() {
    return pieces.peekFirst();
  }

  /**
   * Queues {@code buf}, taking over the caller's reference; its bytes fill the merge target first.
   *
   * @return whether a buffer was queued: false when all its bytes went into the merge target (the
   *     memory held did not grow)
   */
  boolean add(ByteBuf buf) {
    if (mergeTarget != null) {
      int n = Math.min(buf.readableBytes(), mergeTarget.writableBytes());
      mergeTarget.writeBytes(buf, n);
      readable += n;
      if (!buf.isReadable()) {
        buf.release();
        return false;
      }
      mergeTarget = null;
    }
    pieces.addLast(buf);
    readable += buf.readableBytes();
    capacity += buf.capacity();
    return true;
  }

  /** Whether the queued buffers hold more than 1.5 times their bytes plus the tolerated slack. */
  boolean wasteful() {
    return capacity > readable + readable / 2 + MAX_UNMERGED_SLACK;
  }

  /**
   * Copies the queued bytes into one buffer and frees the rest. With {@code frameLength} of at
   * least the queued bytes (all belong to a frame still arriving) the buffer is sized for the
   * frame, and the frame's later bytes are copied in as they arrive; -1 sizes it for the bytes.
   */
  void merge(ByteBufAllocator alloc, int frameLength) {
    boolean withinFrame = frameLength >= readable;
    int size = (int) (withinFrame ? frameLength : readable);
    ByteBuf merged = alloc.directBuffer(size, size);
    ByteBuf piece;
    while ((piece = pieces.pollFirst()) != null) {
      merged.writeBytes(piece);
      piece.release();
    }
    pieces.addLast(merged);
    capacity = merged.capacity();
    mergeTarget = withinFrame && merged.isWritable() ? merged : null;
  }

  /** Removes the next {@code length} bytes as one buffer the caller owns. */
  ByteBuf take(int length, ByteBufAllocator alloc) {
    readable -= length;
    ByteBuf first = pieces.peekFirst();
    if (first.readableBytes() >= length) {
      return takeFrom(first, length);
    }
    CompositeByteBuf frame = alloc.compositeBuffer(piecesSpanned(length));
    int remaining = length;
    while (remaining > 0) {
      ByteBuf piece = pieces.peekFirst();
      int n = Math.min(remaining, piece.readableBytes());
      frame.addComponent(true, takeFrom(piece, n));
      remaining -= n;
    }
    return frame;
  }

  /**
   * Takes {@code n} bytes from the head of {@code piece}, the first queued buffer: the buffer
   * itself (our reference handed on) when it is used up, otherwise a retained slice.
   */
  private ByteBuf takeFrom(ByteBuf piece, int n) {
    if (n == piece.readableBytes()) {
      pieces.removeFirst();
      capacity -= piece.capacity();
      if (piece == mergeTarget) {
        mergeTarget = null;
      }
      return piece;
    }
    return piece.readRetainedSlice(n);
  }

  /**
   * Number of queued buffers the next {@code length} bytes span: the composite never consolidates.
   */
  private int piecesSpanned(int length) {
    int spanned = 0;
    long covered = 0;
    for (ByteBuf piece : pieces) {
      spanned++;
      covered += piece.readableBytes();
      if (covered >= length) {
        break;
      }
    }
    return spanned;
  }

  /** Drops the next {@code n} bytes. */
  void skip(int n) {
    readable -= n;
    int remaining = n;
    while (remaining > 0) {
      ByteBuf piece = pieces.peekFirst();
      int step = Math.min(remaining, piece.readableBytes());
      piece.skipBytes(step);
      remaining -= step;
      if (!piece.isReadable() && piece != mergeTarget) {
        pieces.removeFirst();
        capacity -= piece.capacity();
        piece.release();
      }
    }
  }

  /** Copies every queued byte into {@code body} and frees the buffers. */
  void moveInto(PlacedBody body) {
    ByteBuf piece;
    while ((piece = pieces.pollFirst()) != null) {
      body.fill(piece);
      piece.release();
    }
    readable = 0;
    capacity = 0;
    mergeTarget = null;
  }

  /** Frees every queued buffer. */
  void releaseAll() {
    ByteBuf piece;
    while ((piece = pieces.pollFirst()) != null) {
      piece.release();
    }
    readable = 0;
    capacity = 0;
    mergeTarget = null;
  }

  /** The big-endian int at {@code offset} from the start of the queued bytes, not consumed. */
  int getInt(int offset) {
    int value = 0;
    for (int i = 0; i < 4; i++) {
      value = (value << 8) | getUnsignedByte(offset + i);
    }
    return value;
  }

  /** The big-endian long at {@code offset} from the start of the queued bytes, not consumed. */
  long getLong(int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | getUnsignedByte(offset + i);
    }
    return value;
  }

  /** The byte at {@code offset} from the start of the queued bytes, not consumed. */
  int getUnsignedByte(int offset) {
    int skipped = 0;
    for (ByteBuf piece : pieces) {
      int n = piece.readableBytes();
      if (offset < skipped + n) {
        return piece.getUnsignedByte(piece.readerIndex() + offset - skipped);
      }
      skipped += n;
    }
    throw new IllegalStateException(
        "offset " + offset + " beyond the " + readable + " queued bytes");
  }
}
