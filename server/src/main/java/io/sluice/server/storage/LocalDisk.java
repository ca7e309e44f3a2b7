package io.sluice.server.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;

/**
 * One of the server's local directories (ideally one per disk), its health, its flush threads and
 * its read threads. Health changes only through {@link DiskManager}; everything here may be read
 * from any thread.
 */
public final class LocalDisk {
  private final Path root;
  private final ToLongFunction<Path> usableSpace;
  private final ThreadPoolExecutor flushExecutor;
  private final ThreadPoolExecutor readExecutor;

  /** Null while healthy. */
  private volatile String unhealthyReason;

  private volatile boolean full;

  /** Reads failed: its files are lost to readers (set once, never cleared). */
  private volatile boolean unreadable;

  /** Guarded by the owning DiskManager. */
  private long lastCheckNanos;

  /** Whether appends may bypass the page cache here; null until first asked. */
  private volatile Boolean directWrites;

  LocalDisk(Path root, int flushThreads, int readThreads, ToLongFunction<Path> usableSpace) {
    this.root = root;
    this.usableSpace = usableSpace;
    this.flushExecutor =
        new ThreadPoolExecutor(
            flushThreads,
            flushThreads,
            0L,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            new NamedThreads(threadNamePrefix("sluice-flush-", root), FlushThread::new));
    // A queue as long as the threads take: reads beyond it go with sendfile rather than wait.
    this.readExecutor =
        new ThreadPoolExecutor(
            readThreads,
            readThreads,
            0L,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(readThreads),
            new NamedThreads(threadNamePrefix("sluice-read-", root), Thread::new));
  }

  public Path root() {
    return root;
  }

  public boolean isHealthy() {
    return unhealthyReason == null;
  }

  /** Why the disk is out of rotation ("disk full", or the I/O error), or null while healthy. */
  public String unhealthyReason() {
    return unhealthyReason;
  }

  public long totalBytes() {
    return root.toFile().getTotalSpace();
  }

  /** Bytes this process may still write on the disk's file system (0 if that cannot be told). */
  public long usableBytes() {
    return usableSpace.applyAsLong(root);
  }

  /**
   * The disk's flush threads ({@code flush.threads.per.disk}), named sluice-flush-&lt;dir&gt;-N.
   */
  public Executor flushExecutor() {
    return flushExecutor;
  }

  /**
   * The disk's read threads ({@code read.threads.per.disk}), named sluice-read-&lt;dir&gt;-N: they
   * read data written here with direct I/O for readers ({@link DirectRead}), so that an event loop
   * never waits for the device.
   */
  public Executor readExecutor() {
    return readExecutor;
  }

  /**
   * Whether data files here can be written with {@code O_DIRECT} ({@link DirectAppender}): the file
   * system's block size must divide {@link DirectAppender#ALIGNMENT}. Found out once; a file system
   * that refuses direct I/O when a file is opened (tmpfs) turns it off through {@link
   * #refusesDirectWrites}.
   */
  public boolean takesDirectWrites() {
    Boolean known = directWrites;
    if (known == null) {
      boolean takes;
      try {
        long blockSize = Files.getFileStore(root).getBlockSize();
        takes = blockSize > 0 && DirectAppender.ALIGNMENT % blockSize == 0;
      } catch (IOException | UnsupportedOperationException e) {
        takes = false;
      }
      directWrites = known = takes;
    }
    return known;
  }

  /**
   * Direct writes failed here for a reason that will not pass; appends go through the page cache.
   */
  void refusesDirectWrites() {
    directWrites = false;
  }

  /** Flush tasks queued and not yet started on this disk's threads. */
  public int pendingFlushes() {
    return flushExecutor.getQueue().size();
  }

  /**
   * Takes the disk out of rotation; returns false if it already was. Called under DiskManager's
   * lock.
   */
  boolean markUnhealthy(String reason, boolean becauseFull, long nowNanos) {
    if (unhealthyReason != null) {
      return false;
    }
    full = becauseFull;
    lastCheckNanos = nowNanos;
    unhealthyReason = reason;
    return true;
  }

  /** True once reads from the disk failed: what it holds is lost to readers. */
  public boolean isUnreadable() {
    return unreadable;
  }

  /**
   * Out for good, for reads and writes: also a disk that was out only because it was full, which
   * would otherwise come back once it had room. Returns whether it was readable before. Called
   * under DiskManager's lock.
   */
  boolean markUnreadable(String reason, long nowNanos) {
    boolean was = !unreadable;
    unreadable = true;
    full = false;
    if (unhealthyReason == null) {
      unhealthyReason = reason;
      lastCheckNanos = nowNanos;
    }
    return was;
  }

  /** True if the disk is out of rotation only because it was full, so that it may come back. */
  boolean isOutBecauseFull() {
    return unhealthyReason != null && full;
  }

  /** When the disk was taken out or last found still full. Called under DiskManager's lock. */
  long lastCheckNanos() {
    return lastCheckNanos;
  }

  void stillFull(long nowNanos) {
    lastCheckNanos = nowNanos;
  }

  void markHealthy() {
    unhealthyReason = null;
    full = false;
  }

  ThreadPoolExecutor executorService() {
    return flushExecutor;
  }

  ThreadPoolExecutor readExecutorService() {
    return readExecutor;
  }

  @Override
  public String toString() {
    String reason = unhealthyReason;
    return "LocalDisk["
        + root
        + (reason == null ? "" : ", unhealthy: " + reason)
        + (unreadable ? ", unreadable" : "")
        + "]";
  }

  private static String threadNamePrefix(String kind, Path root) {
    Path name = root.getFileName();
    return kind + (name == null ? root.toString() : name.toString()) + "-";
  }

  /**
   * The calling thread's staging buffer for direct writes, if it is a flush thread (each has one,
   * made on first use, so their number bounds the memory), or null (another thread; no direct
   * memory to spare).
   */
  static ByteBuffer flushThreadStagingBuffer() {
    return Thread.currentThread() instanceof FlushThread t ? t.stagingBuffer() : null;
  }

  private static final class FlushThread extends Thread {
    private ByteBuffer staging;

    FlushThread(Runnable r, String name) {
      super(r, name);
    }

    /** Null when the JVM's direct memory cannot spare it: the caller writes buffered. */
    ByteBuffer stagingBuffer() {
      if (staging == null) {
        try {
          staging = DirectAppender.newStagingBuffer();
        } catch (OutOfMemoryError e) {
          return null;
        }
      }
      return staging;
    }
  }

  /** Daemon threads named prefix-N, made by {@code make}. */
  private static final class NamedThreads implements ThreadFactory {
    private final String prefix;
    private final BiFunction<Runnable, String, Thread> make;
    private final AtomicInteger next = new AtomicInteger();

    NamedThreads(String prefix, BiFunction<Runnable, String, Thread> make) {
      this.prefix = prefix;
      this.make = make;
    }

    @Override
    public Thread newThread(Runnable r) {
      Thread t = make.apply(r, prefix + next.getAndIncrement());
      t.setDaemon(true);
      return t;
    }
  }
}
