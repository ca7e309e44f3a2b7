package io.sluice.server.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real files, with failures injected per directory: opening fails, or writes fail once a number of
 * bytes have been written through channels opened afterwards (like a disk that fills up mid-write).
 */
public final class FaultyFileIo implements FileIo {
  private final Map<Path, String> failOpen = new ConcurrentHashMap<>();
  private final Map<Path, WriteFault> failWrites = new ConcurrentHashMap<>();
  private final Map<Path, String> failDirectWrites = new ConcurrentHashMap<>();
  private final Map<Path, String> failForce = new ConcurrentHashMap<>();
  private final Map<Path, String> failDirectReads = new ConcurrentHashMap<>();
  private final AtomicInteger directOpens = new AtomicInteger();

  /** Opening any file under {@code dir} for writing throws an IOException with {@code message}. */
  public FaultyFileIo failOpen(Path dir, String message) {
    failOpen.put(dir.toAbsolutePath().normalize(), message);
    return this;
  }

  /**
   * Writes under {@code dir} succeed for {@code bytes} more bytes (counted over all files), then
   * throw an IOException with {@code message}; the write that crosses the limit stores its first
   * part, as a real short write before ENOSPC would.
   */
  public FaultyFileIo failWritesAfter(Path dir, long bytes, String message) {
    failWrites.put(dir.toAbsolutePath().normalize(), new WriteFault(bytes, message));
    return this;
  }

  /**
   * Files under {@code dir} open for direct writes, and every write through them throws an
   * IOException with {@code message}, as on a file system that takes O_DIRECT at open and refuses
   * the I/O; buffered writes there work.
   */
  public FaultyFileIo failDirectWrites(Path dir, String message) {
    failDirectWrites.put(dir.toAbsolutePath().normalize(), message);
    return this;
  }

  /**
   * Opening any file under {@code dir} for a direct read throws an IOException with {@code
   * message}. The other faults are of writes and leave reads alone, as sendfile's reads are.
   */
  public FaultyFileIo failDirectReads(Path dir, String message) {
    failDirectReads.put(dir.toAbsolutePath().normalize(), message);
    return this;
  }

  /**
   * Forcing any file under {@code dir} to the device throws an IOException with {@code message}, as
   * on a device whose writes fail where the page cache took them.
   */
  public FaultyFileIo failForce(Path dir, String message) {
    failForce.put(dir.toAbsolutePath().normalize(), message);
    return this;
  }

  /** How many files were asked to open for direct writes, faulty or not. */
  public int directOpens() {
    return directOpens.get();
  }

  public void heal(Path dir) {
    failOpen.remove(dir.toAbsolutePath().normalize());
    failWrites.remove(dir.toAbsolutePath().normalize());
  }

  @Override
  public FileChannel openForAppend(Path p) throws IOException {
    return open(p, FileIo.DEFAULT::openForAppend);
  }

  /** As {@link #openForAppend}, the faults applying alike, with the real O_DIRECT open. */
  @Override
  public FileChannel openForDirectWrite(Path p) throws IOException {
    directOpens.incrementAndGet();
    FileChannel channel = open(p, FileIo.DEFAULT::openForDirectWrite);
    Path file = p.toAbsolutePath().normalize();
    for (Map.Entry<Path, String> fault : failDirectWrites.entrySet()) {
      if (file.startsWith(fault.getKey())) {
        return new FailingChannel(channel, new WriteFault(0, fault.getValue()), null);
      }
    }
    return channel;
  }

  /** The real O_DIRECT open, failing as {@link #failDirectReads} says. */
  @Override
  public FileChannel openForDirectRead(Path p) throws IOException {
    Path file = p.toAbsolutePath().normalize();
    for (Map.Entry<Path, String> fault : failDirectReads.entrySet()) {
      if (file.startsWith(fault.getKey())) {
        throw new IOException(fault.getValue());
      }
    }
    return FileIo.DEFAULT.openForDirectRead(p);
  }

  private interface Opener {
    FileChannel open(Path p) throws IOException;
  }

  private FileChannel open(Path p, Opener opener) throws IOException {
    Path file = p.toAbsolutePath().normalize();
    for (Map.Entry<Path, String> fault : failOpen.entrySet()) {
      if (file.startsWith(fault.getKey())) {
        throw new IOException(fault.getValue());
      }
    }
    FileChannel channel = opener.open(p);
    String forceFault = null;
    for (Map.Entry<Path, String> fault : failForce.entrySet()) {
      if (file.startsWith(fault.getKey())) {
        forceFault = fault.getValue();
      }
    }
    for (Map.Entry<Path, WriteFault> fault : failWrites.entrySet()) {
      if (file.startsWith(fault.getKey())) {
        return new FailingChannel(channel, fault.getValue(), forceFault);
      }
    }
    return forceFault == null
        ? channel
        : new FailingChannel(channel, new WriteFault(Long.MAX_VALUE, ""), forceFault);
  }

  @Override
  public FileChannel openForRead(Path p) throws IOException {
    return FileIo.DEFAULT.openForRead(p);
  }

  private static final class WriteFault {
    private long budget;
    private final String message;

    WriteFault(long budget, String message) {
      this.budget = budget;
      this.message = message;
    }

    /** How many of {@code wanted} bytes may still be written; throws when none may. */
    synchronized int allow(int wanted) throws IOException {
      if (budget <= 0 && wanted > 0) {
        throw new IOException(message);
      }
      int allowed = (int) Math.min(wanted, budget);
      budget -= allowed;
      return allowed;
    }
  }

  /**
   * Delegates to a real channel; writes go through the fault's byte budget, and forcing throws
   * {@code forceFault} unless it is null.
   */
  private static final class FailingChannel extends FileChannel {
    private final FileChannel delegate;
    private final WriteFault fault;
    private final String forceFault;

    FailingChannel(FileChannel delegate, WriteFault fault, String forceFault) {
      this.delegate = delegate;
      this.fault = fault;
      this.forceFault = forceFault;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int allowed = fault.allow(src.remaining());
      ByteBuffer part = src.slice().limit(allowed);
      int n = delegate.write(part);
      src.position(src.position() + n);
      return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      for (int i = offset; i < offset + length; i++) {
        if (srcs[i].hasRemaining()) {
          return write(srcs[i]);
        }
      }
      return 0;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      int allowed = fault.allow(src.remaining());
      ByteBuffer part = src.slice().limit(allowed);
      int n = delegate.write(part, position);
      src.position(src.position() + n);
      return n;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return delegate.read(dst, position);
    }

    @Override
    public long position() throws IOException {
      return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      delegate.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      delegate.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      if (forceFault != null) {
        throw new IOException(forceFault);
      }
      delegate.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
      throw new UnsupportedOperationException("storage never transfers into its files");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
    }
  }
}
