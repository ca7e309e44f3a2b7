package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.util.ArrayDeque;

/**
 * The bytes a connection received and {@link FrameDecoder} has not handed on yet: the received
 * buffers, queued as they are (each queued buffer is owned here, one reference), read from the
 * front without copying. Buffers that hold much less than their capacity (a peer sending tiny
 * segments) can be merged into one, so that the memory held stays within 1.5 times the bytes plus
 * {@link FrameDecoder#MAX_UNMERGED_SLACK}. Event loop only.
 */
final class ReceivedBytes {
  private final ArrayDeque<ByteBuf> pieces = new ArrayDeque<>();
  private long bytes;

  /** Sum of the capacities of the queued buffers: the memory they hold. */
  private long capacity;

  /**
   * The last queued buffer when it was made by merging and the current frame's bytes go into it.
   */
  private ByteBuf mergeTarget;

  /** Bytes queued. */
  long bytes() {
    return bytes;
  }

  /**
   * Takes ownership of {@code buf}, a readable buffer.
   *
   * @return whether it was queued as a buffer of its own (false: copied whole into the buffer an
   *     earlier merge made for the current frame, which holds no more memory than before)
   */
  boolean add(ByteBuf buf) {
    if (mergeTarget != null) {
      int n = Math.min(buf.readableBytes(), mergeTarget.writableBytes());
      mergeTarget.writeBytes(buf, n);
      bytes += n;
      if (!buf.isReadable()) {
        buf.release();
        return false;
      }
      mergeTarget = null;
    }
    pieces.addLast(buf);
    bytes += buf.readableBytes();
    capacity += buf.capacity();
    return true;
  }

  /** Whether the queued buffers hold so much more memory than bytes that they should merge. */
  boolean sparse() {
    return capacity > bytes + bytes / 2 + FrameDecoder.MAX_UNMERGED_SLACK;
  }

  /**
   * Copies the queued bytes into one buffer and frees the others. When {@code frameRest} is at
   * least the queued bytes, all of them belong to the current frame: the buffer is sized for the
   * frame's {@code frameRest} bytes and the frame's later bytes are copied in as they arrive.
   *
   * @param frameRest the current frame's bytes from the front of the queue, or -1
   */
  void merge(ByteBufAllocator alloc, long frameRest) {
    boolean withinFrame = frameRest >= bytes;
    int size = (int) (withinFrame ? frameRest : bytes);
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

  /** The first queued buffer, when it holds every queued byte; null otherwise. */
  ByteBuf single() {
    return pieces.size() == 1 ? pieces.peekFirst() : null;
  }

  /** Removes the next {@code length} bytes as one buffer the caller owns. */
  ByteBuf take(ByteBufAllocator alloc, int length) {
    bytes -= length;
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
   * Number of queued buffers the next {@code length} bytes span: a composite never consolidates.
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

  int getInt(int offset) {
    int value = 0;
    for (int i = 0; i < 4; i++) {
      value = (value << 8) | getUnsignedByte(offset + i);
    }
    return value;
  }

  long getLong(int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | getUnsignedByte(offset + i);
    }
    return value;
  }

  /** The byte at {@code offset} from the front, without consuming anything. */
  int getUnsignedByte(int offset) {
    int skipped = 0;
    for (ByteBuf piece : pieces) {
      int readable = piece.readableBytes();
      if (offset < skipped + readable) {
        return piece.getUnsignedByte(piece.readerIndex() + offset - skipped);
      }
      skipped += readable;
    }
    throw new IllegalStateException("offset " + offset + " beyond the " + bytes + " queued bytes");
  }

  void skip(int n) {
    bytes -= n;
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

  /** Hands every queued byte to {@code body}, in order, and frees the buffers. */
  void drainInto(PlacedBody body) {
    ByteBuf piece;
    while ((piece = pieces.pollFirst()) != null) {
      body.fill(piece);
      piece.release();
    }
    clear();
  }

  /** Frees every queued buffer. */
  void release() {
    ByteBuf piece;
    while ((piece = pieces.pollFirst()) != null) {
      piece.release();
    }
    clear();
  }

  private void clear() {
    bytes = 0;
    capacity = 0;
    mergeTarget = null;
  }
}
