package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends blocks to a data file opened with {@code O_DIRECT}, so that the bytes go from memory to
 * the device without passing through the page cache. For bytes nobody is expected to read soon (the
 * last server of a replica chain holds a partition only in case its primary is lost; with {@code
 * flush.direct all}, shuffles larger than the page cache), a buffered write costs the flush thread
 * a page-cache page per 4 KiB, allocated and copied into by the kernel, and later the writeback:
 * several times the CPU of the direct write this class makes.
 *
 * <p>Direct I/O moves whole blocks of the file system at aligned offsets from aligned memory, and
 * every piece of a gathering write must be a whole number of them too (the kernel refuses a vector
 * of any other length, whatever the total). Blocks are placed two ways:
 *
 * <ul>
 *   <li><b>In place</b>: a block of at least {@link #IN_PLACE_MIN_BYTES} whose memory starts at an
 *       {@link #ALIGNMENT} boundary (the push pool's large blocks do) is written straight from its
 *       memory, its whole aligned units as one piece of the write. It starts at the next aligned
 *       offset of the file: up to {@code ALIGNMENT - 1} bytes of zeros lie before it, which no
 *       index entry covers. Its last partial unit is copied into the staging buffer, where the next
 *       blocks follow it.
 *   <li><b>Staged</b>: any other block is copied into the flush thread's staging buffer ({@link
 *       #STAGING_BYTES}, aligned), right after the bytes before it.
 * </ul>
 *
 * Staged runs and in-place blocks are written in file order with gathering writes, each made once
 * {@link #WRITE_BYTES} are queued (one in-place block may take it past that) or the staging buffer
 * is full. The last partial unit of an append is written padded with zeros, and the file keeps
 * them: it always ends on an aligned offset, past the end of its last block (which the caller
 * records), so the next append to it either starts a block in place right there or, with a staged
 * block first, reads that unit back and writes it again with the new bytes after the old.
 *
 * <p>Why the file is not cut back to its last block: on ext4 (Linux 6.18, measured), a file cut to
 * an unaligned length and then written past its end from the next aligned offset is read back into
 * the page cache 4 KiB at a time when read soon after, instead of in large folios, which cost the
 * server's sendfile about 0.1 CPU seconds more per GiB sent (bin/bench-server.sh's read figures);
 * each cut was also a journalled change of the file's size.
 */
public final class DirectAppender {
  /**
   * The alignment of offsets, lengths and memory: a multiple of the logical block size of every
   * device Sluice expects (512 or 4096 bytes). A file system whose block size does not divide it
   * gets buffered writes ({@link LocalDisk#takesDirectWrites}).
   */
  static final int ALIGNMENT = 4096;

  /** Bytes each flush thread stages. */
  static final int STAGING_BYTES = 1 << 20;

  /**
   * The smallest block written in place: the zeros before it (2 KiB on average, at most 4,095
   * bytes) are about 3% of the bytes it saves copying at worst.
   */
  static final int IN_PLACE_MIN_BYTES = 64 * 1024;

  /** Bytes queued before a gathering write is made (a staging buffer full is written at once). */
  static final int WRITE_BYTES = 4 << 20;

  /** The direct memory of one staging buffer, its alignment slack included. */
  public static final long STAGING_MEMORY_BYTES = STAGING_BYTES + ALIGNMENT;

  private static final byte[] ZEROS = new byte[ALIGNMENT];

  private DirectAppender() {}

  /**
   * A staging buffer for a flush thread: {@link #STAGING_BYTES} of direct memory aligned to {@link
   * #ALIGNMENT}. Counted in the server's direct-memory bound per flush thread.
   */
  static ByteBuffer newStagingBuffer() {
    return ByteBuffer.allocateDirect((int) STAGING_MEMORY_BYTES).alignedSlice(ALIGNMENT);
  }

  /**
   * Appends the blocks' readable bytes (without moving their indexes) to {@code channel} after
   * {@code position}, where the last block appended before ends (the file may run on to the next
   * aligned offset, with zeros), and stores where each block starts in the file in {@code starts};
   * returns where the last block now ends, {@code position} when no block had bytes. The file then
   * ends at the next aligned offset at or after that. On failure the file may hold more: the caller
   * cuts it back.
   */
  static long append(
      FileChannel channel,
      ByteBuffer staging,
      long position,
      List<? extends FlushableBlock> blocks,
      long[] starts)
      throws IOException {
    Batch batch = new Batch(channel, staging, position);
    for (int i = 0; i < blocks.size(); i++) {
      starts[i] = batch.add(blocks.get(i).data());
    }
    return batch.finish();
  }

  /**
   * The state of one append. The staging buffer holds, from {@code runStart} to its position, the
   * run of staged bytes not yet queued for writing, which starts at file offset {@code runAt}; the
   * queued pieces end where the run starts. Staging indexes and file offsets are congruent modulo
   * {@link #ALIGNMENT}.
   */
  private static final class Batch {
    private final FileChannel channel;
    private final ByteBuffer staging;
    private final long position;
    private final List<ByteBuffer> queued = new ArrayList<>();
    private long queuedAt;
    private long queuedBytes;
    private int runStart;
    private long runAt;

    /** Where the next block's bytes go. */
    private long end;

    /** Nothing placed yet: the file's last partial unit is not in the staging buffer. */
    private boolean untouched = true;

    Batch(FileChannel channel, ByteBuffer staging, long position) {
      this.channel = channel;
      this.staging = staging;
      this.position = position;
      this.end = position;
      staging.clear();
    }

    /** Places a block's readable bytes; returns the file offset where they start. */
    long add(ByteBuf data) throws IOException {
      int length = data.readableBytes();
      if (length == 0) {
        return end;
      }
      int index = data.readerIndex();
      if (length < IN_PLACE_MIN_BYTES
          || data.nioBufferCount() != 1
          || !data.hasMemoryAddress()
          || (data.memoryAddress() + index) % ALIGNMENT != 0) {
        long start = end;
        stage(data, index, length);
        return start;
      }
      alignEnd();
      long start = end;
      int whole = length - length % ALIGNMENT;
      queue(data.nioBuffer(index, whole));
      runAt += whole;
      end += whole;
      stage(data, index + whole, length - whole);
      if (queuedBytes >= WRITE_BYTES) {
        writeQueued();
        // The run so far holds only what came after the queued pieces: move it to the front.
        int run = staging.position() - runStart;
        staging.put(0, staging, runStart, run).position(run);
        runStart = 0;
      }
      return start;
    }

    /** Where the last block ends, once every byte placed is written (the zeros after it too). */
    long finish() throws IOException {
      if (untouched) {
        return position;
      }
      padRun();
      queueRun();
      writeQueued();
      return end;
    }

    /** Copies bytes after the end of what is placed, writing the staging buffer whenever full. */
    private void stage(ByteBuf data, int index, int length) throws IOException {
      if (untouched) {
        untouched = false;
        runAt = position - position % ALIGNMENT;
        int tail = (int) (position - runAt);
        if (tail > 0) {
          readTail(channel, staging, runAt, tail);
        }
      }
      while (length > 0) {
        int n = Math.min(length, staging.remaining());
        staging.limit(staging.position() + n);
        data.getBytes(index, staging);
        staging.limit(staging.capacity());
        index += n;
        length -= n;
        end += n;
        if (!staging.hasRemaining()) {
          queueRun();
          writeQueued();
          staging.clear();
          runStart = 0;
        }
      }
    }

    /**
     * Moves the end of what is placed to the next aligned offset, for a block written in place:
     * zeros after the staged run or, before anything was placed, the zeros the last append left
     * after its last block.
     */
    private void alignEnd() {
      if (untouched) {
        untouched = false;
        end = (position + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        runAt = end;
        return;
      }
      end += padRun();
      queueRun();
    }

    /** Pads the staged run with zeros to an aligned length; returns the zeros' count. */
    private int padRun() {
      int zeros = (ALIGNMENT - staging.position() % ALIGNMENT) % ALIGNMENT;
      staging.put(ZEROS, 0, zeros);
      return zeros;
    }

    /** Queues the staged run, of an aligned length by now, for writing. */
    private void queueRun() {
      int length = staging.position() - runStart;
      if (length > 0) {
        queue(staging.slice(runStart, length));
        runAt += length;
        runStart = staging.position();
      }
    }

    private void queue(ByteBuffer piece) {
      if (queued.isEmpty()) {
        queuedAt = runAt;
      }
      queued.add(piece);
      queuedBytes += piece.remaining();
    }

    private void writeQueued() throws IOException {
      if (queued.isEmpty()) {
        return;
      }
      ByteBuffer[] pieces = queued.toArray(new ByteBuffer[0]);
      channel.position(queuedAt);
      long left = queuedBytes;
      int first = 0;
      while (left > 0) {
        // A short direct write leaves the next piece unaligned, which the channel refuses: the
        // append fails as a failed write does (the device is full or failing).
        left -= channel.write(pieces, first, pieces.length - first);
        while (first < pieces.length && !pieces[first].hasRemaining()) {
          first++;
        }
      }
      queued.clear();
      queuedBytes = 0;
    }
  }

  /** Reads the file's last partial unit, the {@code tail} bytes from {@code unitStart}. */
  private static void readTail(FileChannel channel, ByteBuffer staging, long unitStart, int tail)
      throws IOException {
    staging.limit(ALIGNMENT);
    // One aligned read of a whole unit: at the end of the file it returns what is there.
    int n = channel.read(staging, unitStart);
    if (n < tail) {
      throw new EOFException(
          "the file ends "
              + Math.max(n, 0)
              + " bytes after offset "
              + unitStart
              + "; "
              + tail
              + " were written");
    }
    staging.limit(staging.capacity()).position(tail);
  }
}
