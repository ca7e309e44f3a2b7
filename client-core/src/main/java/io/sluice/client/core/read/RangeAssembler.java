package io.sluice.client.core.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the answers to the reads of one {@link DataRange} and cuts them into blocks. A server
 * may answer a read with fewer bytes than asked (where one of a partition's files ends); the next
 * read continues from {@link #nextOffset()}, and a block split across two answers is joined. Not
 * thread-safe.
 *
 * <p>Ownership: the answers' bytes are held in one composite buffer; each block handed out is a
 * retained slice of it (the block's owner releases it), and {@link #close()} drops the assembler's
 * own reference, so the memory is freed when the last block is released.
 */
final class RangeAssembler {
  private final DataRange range;
  private final ByteBufAllocator allocator;
  private CompositeByteBuf received;
  private long receivedBytes;

  /** The offset in the partition's data of the first byte of {@code received} not yet read. */
  private long cursor;

  /** Bytes between blocks dropped since {@link #takeDroppedBytes()} last ran. */
  private long dropped;

  private int nextBlock;
  private long unsettled;

  /** A block cut out of the answers; owns one reference to {@code data}. */
  record Piece(IndexEntry block, ByteBuf data) {}

  RangeAssembler(DataRange range, ByteBufAllocator allocator) {
    this.range = range;
    this.allocator = allocator;
    this.cursor = range.offset();
  }

  DataRange range() {
    return range;
  }

  /** Notes the bytes of the fetch budget held for this range's blocks. */
  void reserve(long bytes) {
    unsettled += bytes;
  }

  /** A block of {@code bytes} was cut: its bytes are accounted with the block from now on. */
  void settle(long bytes) {
    unsettled -= bytes;
  }

  /** Budget held for blocks not cut yet, to give back when the range is abandoned. */
  long unsettled() {
    return unsettled;
  }

  /** Where the next read starts. */
  long nextOffset() {
    return range.offset() + receivedBytes;
  }

  /** Bytes of the range not yet received. */
  int remaining() {
    return (int) (range.length() - receivedBytes);
  }

  /** Whether every byte of the range arrived. */
  boolean complete() {
    return receivedBytes == range.length();
  }

  /**
   * Adds the answer to the read at {@link #nextOffset()} and returns the blocks it completed. Takes
   * over one reference to {@code answer} on every path.
   *
   * @throws IOException if the answer is empty or longer than what was asked
   */
  List<Piece> append(ByteBuf answer) throws IOException {
    int size = answer.readableBytes();
    if (size == 0 || size > remaining()) {
      answer.release();
      throw new IOException(
          "read of "
              + remaining()
              + " bytes at offset "
              + nextOffset()
              + " was answered with "
              + size
              + " bytes");
    }
    if (received == null) {
      // No component limit: consolidating would copy what arrived.
      received = allocator.compositeDirectBuffer(Integer.MAX_VALUE);
    }
    received.addComponent(true, answer);
    receivedBytes += size;
    return takeCompleted();
  }

  /**
   * Blocks complete so far and not yet handed out; for a range of empty blocks only, the only call
   * needed.
   */
  List<Piece> takeCompleted() {
    List<Piece> pieces = new ArrayList<>();
    List<IndexEntry> blocks = range.blocks();
    while (nextBlock < blocks.size()) {
      IndexEntry block = blocks.get(nextBlock);
      // Bytes between blocks (zeros a server left before a block) are dropped.
      int skip = (int) (block.offset() - cursor);
      int needed = skip + block.length();
      if (needed > 0 && (received == null || received.readableBytes() < needed)) {
        break;
      }
      if (skip > 0) {
        received.skipBytes(skip);
        dropped += skip;
      }
      pieces.add(
          new Piece(
              block,
              block.length() == 0
                  ? Unpooled.EMPTY_BUFFER
                  : received.readRetainedSlice(block.length())));
      cursor = block.end();
      nextBlock++;
    }
    return pieces;
  }

  /**
   * The bytes between blocks dropped since the last call: read with the range and reserved with it,
   * but no block's.
   */
  long takeDroppedBytes() {
    long bytes = dropped;
    dropped = 0;
    return bytes;
  }

  /** Drops this assembler's reference to the bytes; blocks handed out stay valid. Idempotent. */
  void close() {
    if (received != null) {
      received.release();
      received = null;
    }
  }
}
