package io.sluice.common.buffer;

import io.netty.channel.DefaultFileRegion;
import io.netty.handler.stream.ChunkedNioFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A segment of a file. Holds no file descriptor until it is converted or read, so that thousands of
 * pending segments do not exhaust descriptors. Sent with {@link DefaultFileRegion} (sendfile, zero
 * copy) or, under TLS, with {@link ChunkedNioFile}.
 */
public final class FileSegmentManagedBuffer extends ManagedBuffer {
  /**
   * Chunk size for the TLS path: large enough to amortise per-chunk costs, small enough for TLS
   * records.
   */
  private static final int TLS_CHUNK_SIZE = 64 * 1024;

  private final Path file;
  private final long offset;
  private final long length;
  private final AtomicInteger refCnt = new AtomicInteger(1);

  public FileSegmentManagedBuffer(Path file, long offset, long length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("negative offset or length: " + offset + ", " + length);
    }
    this.file = file;
    this.offset = offset;
    this.length = length;
  }

  public Path file() {
    return file;
  }

  public long offset() {
    return offset;
  }

  @Override
  public long size() {
    return length;
  }

  @Override
  public InputStream createInputStream() throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    channel.position(offset);
    return new BoundedInputStream(Channels.newInputStream(channel), length);
  }

  @Override
  public ManagedBuffer retain() {
    refCnt.updateAndGet(
        n -> {
          if (n <= 0) {
            throw new IllegalStateException("retain() of a released " + this);
          }
          return n + 1;
        });
    return this;
  }

  @Override
  public ManagedBuffer release() {
    if (refCnt.decrementAndGet() < 0) {
      throw new IllegalStateException("release() of a released " + this);
    }
    return this;
  }

  @Override
  public int refCnt() {
    return Math.max(0, refCnt.get());
  }

  /**
   * A {@link DefaultFileRegion} opens the file lazily and closes it when the channel releases the
   * region; this buffer's own reference is handed to the region (released here at once).
   */
  @Override
  public Object convertToNetty() {
    DefaultFileRegion region = new DefaultFileRegion(file.toFile(), offset, length);
    release();
    return region;
  }

  @Override
  public Object convertToNettyForTls() throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      ChunkedNioFile chunked = new ChunkedNioFile(channel, offset, length, TLS_CHUNK_SIZE);
      release();
      return chunked;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  @Override
  public String toString() {
    return "FileSegmentManagedBuffer[file="
        + file
        + ", offset="
        + offset
        + ", length="
        + length
        + "]";
  }

  private static final class BoundedInputStream extends InputStream {
    private final InputStream in;
    private long remaining;

    BoundedInputStream(InputStream in, long limit) {
      this.in = in;
      this.remaining = limit;
    }

    @Override
    public int read() throws IOException {
      if (remaining <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        remaining--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (remaining <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, remaining));
      if (n > 0) {
        remaining -= n;
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
