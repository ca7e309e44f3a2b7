package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one batch of blocks at the end of a local generation's files: the blocks' bytes to the
 * data file (gathering writes through the page cache, or around it with {@link DirectAppender}),
 * then their {@link IndexEntry index entries} to the index file. A batch that fails is truncated
 * away again, so a failed write leaves the files as they were. The blocks' buffers are read, not
 * released. Decides nothing about where a batch goes: {@link PartitionFiles} does.
 */
final class BatchWriter {
  private static final Logger LOG = LoggerFactory.getLogger(BatchWriter.class);

  private final FileIo io;

  BatchWriter(FileIo io) {
    this.io = io;
  }

  /**
   * Appends {@code blocks} to {@code g}'s files, with direct I/O when {@code bypassPageCache} asks
   * for it and the disk and calling thread allow it.
   *
   * @param toDevice whether buffered data is forced to the device before the append returns: a
   *     write through the page cache succeeds on a device that fails, which only write-back finds
   * @return the data file's new length, and whether the data went with direct I/O
   * @throws DirectWriteException when a direct write failed (nothing of the batch is left): the
   *     caller tries the same file again through the page cache before it blames the disk
   */
  Appended append(
      PartitionGeneration g,
      List<? extends FlushableBlock> blocks,
      boolean bypassPageCache,
      boolean toDevice)
      throws IOException {
    ByteBuffer staging =
        bypassPageCache && g.disk().takesDirectWrites()
            ? LocalDisk.flushThreadStagingBuffer()
            : null;
    FileChannel direct = staging == null ? null : openDirect(g);
    try (FileChannel data = direct != null ? direct : io.openForAppend(g.dataFile());
        FileChannel index = io.openForAppend(g.indexFile())) {
      try {
        long[] starts;
        long length;
        if (direct != null) {
          starts = new long[blocks.size()];
          length = appendDirect(data, staging, g.dataLength(), blocks, starts);
        } else {
          starts = backToBack(g.dataLength(), blocks);
          length = writeData(data, g.dataLength(), blocks);
          if (toDevice) {
            data.force(false);
          }
        }
        writeFully(index, g.indexLength(), indexEntries(g.start(), blocks, starts));
        return new Appended(length, direct != null);
      } catch (IOException | RuntimeException e) {
        // Leave no partial batch behind where it would take space; readers never saw it anyway.
        truncateQuietly(data, g.dataLength(), g.dataFile());
        truncateQuietly(index, g.indexLength(), g.indexFile());
        throw e;
      }
    }
  }

  /** What an append left: the data file's new length, and whether it bypassed the page cache. */
  record Appended(long length, boolean direct) {}

  /**
   * The data file of {@code g} opened for direct writes, or null to write through the page cache:
   * when the disk does not take direct writes, or opening failed (the buffered open that follows
   * then meets the same failure, if it lasts, and fails the append as usual). A file system that
   * refuses direct I/O itself ("Invalid argument") is not asked again.
   */
  private FileChannel openDirect(PartitionGeneration g) {
    LocalDisk disk = g.disk();
    try {
      return io.openForDirectWrite(g.dataFile());
    } catch (IOException | UnsupportedOperationException e) {
      // UnsupportedOperationException is the JDK's answer when the file opened but O_DIRECT could
      // not be set on it; EINVAL, the system's when it refused the flag at open.
      String message = e.getMessage();
      if (e instanceof UnsupportedOperationException
          || (message != null && message.contains("Invalid argument"))) {
        LOG.info(
            "{} does not take direct I/O ({}); data files there are written through the "
                + "page cache",
            disk.root(),
            message);
        disk.refusesDirectWrites();
      }
      return null;
    }
  }

  /** Returns where the last block now ends; see {@link DirectAppender#append}. */
  private static long appendDirect(
      FileChannel channel,
      ByteBuffer staging,
      long position,
      List<? extends FlushableBlock> blocks,
      long[] starts)
      throws DirectWriteException {
    try {
      return DirectAppender.append(channel, staging, position, blocks, starts);
    } catch (IOException e) {
      throw new DirectWriteException(e);
    }
  }

  /** A direct write failed: the batch is tried again through the page cache before the disk. */
  static final class DirectWriteException extends IOException {
    DirectWriteException(IOException cause) {
      super("direct write failed: " + cause, cause);
    }
  }

  /** Gathering writes of all blocks' bytes from {@code position}; returns the file's new length. */
  private static long writeData(
      FileChannel channel, long position, List<? extends FlushableBlock> blocks)
      throws IOException {
    List<ByteBuffer> views = new ArrayList<>(blocks.size());
    long total = 0;
    for (FlushableBlock block : blocks) {
      ByteBuf buf = block.data();
      int length = buf.readableBytes();
      if (length == 0) {
        continue;
      }
      // Views share the block's memory; the block's own indexes do not move.
      Collections.addAll(views, buf.nioBuffers(buf.readerIndex(), length));
      total += length;
    }
    ByteBuffer[] srcs = views.toArray(new ByteBuffer[0]);
    channel.position(position);
    long written = 0;
    int first = 0;
    while (written < total) {
      written += channel.write(srcs, first, srcs.length - first);
      while (first < srcs.length && !srcs[first].hasRemaining()) {
        first++;
      }
    }
    return position + total;
  }

  /** Where the blocks start when written one after another from {@code position}. */
  static long[] backToBack(long position, List<? extends FlushableBlock> blocks) {
    long[] starts = new long[blocks.size()];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = position;
      position += blocks.get(i).data().readableBytes();
    }
    return starts;
  }

  /**
   * The blocks' index entries; {@code starts} says where each block starts in its generation's
   * data, which starts at logical offset {@code generationStart}.
   */
  static ByteBuffer indexEntries(
      long generationStart, List<? extends FlushableBlock> blocks, long[] starts) {
    ByteBuffer entries = ByteBuffer.allocate(Math.multiplyExact(blocks.size(), IndexEntry.SIZE));
    for (int i = 0; i < starts.length; i++) {
      FlushableBlock block = blocks.get(i);
      new IndexEntry(
              generationStart + starts[i],
              block.data().readableBytes(),
              block.uncompressedLength(),
              block.crc32c(),
              block.taskAttemptId(),
              block.sequence())
          .writeTo(entries);
    }
    return entries.flip();
  }

  private static void writeFully(FileChannel channel, long position, ByteBuffer src)
      throws IOException {
    while (src.hasRemaining()) {
      position += channel.write(src, position);
    }
  }

  private static void truncateQuietly(FileChannel channel, long length, Path file) {
    try {
      if (channel.size() > length) {
        channel.truncate(length);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug(
          "Could not truncate {} back to {} bytes after a failed write: {}",
          file,
          length,
          e.toString());
    }
  }
}
