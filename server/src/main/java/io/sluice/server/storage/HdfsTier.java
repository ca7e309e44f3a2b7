package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HDFS tier ({@code hdfs.dir}): a Hadoop-compatible directory that takes the partitions local
 * dirs cannot (all full or failed, or a partition past {@code hdfs.partition.threshold}).
 *
 * <p>Layout: {@code <hdfs.dir>/<server dir>/<appId>/<shuffleId>/<partition>-<N>.segment}. The
 * server dir is named for this server's host and local dirs, so that the next start of the same
 * server finds what an earlier run left. Each flush to HDFS writes one segment file, created and
 * closed by that flush (no stream stays open between flushes, and no append is needed, so any
 * Hadoop-compatible file system serves): the batch's block bytes, then their index entries. Readers
 * read it through the server, which knows where each segment's index starts.
 *
 * <p>Deleting mirrors the local dirs: a shuffle's or application's directory is renamed into
 * {@value DiskManager#TRASH} at once, so its names are free for new data, and deleted in the
 * background. A start deletes the trash and every application directory an earlier run left (they
 * carry {@value DiskManager#APP_MARKER}) unless a restart manifest keeps the application.
 *
 * <p>A failed write takes the tier out of use for {@value #RETRY_SECONDS} seconds; reads go on.
 */
public final class HdfsTier implements Closeable {
  static final String SEGMENT_SUFFIX = ".segment";
  private static final Logger LOG = LoggerFactory.getLogger(HdfsTier.class);
  private static final int RETRY_SECONDS = 30;
  private static final int COPY_CHUNK = 64 * 1024;
  private static final long CLOSE_TIMEOUT_SECONDS = 60;

  private final FileSystem fs;

  /** The Kerberos login the file system acts as; null on an HDFS without Kerberos. */
  private final HdfsLogin login;

  private final Path root;
  private final ThreadPoolExecutor flushExecutor;
  private final ThreadPoolExecutor readExecutor;
  private final ThreadPoolExecutor deleter;
  private final LongSupplier nanoClock;
  private final AtomicLong trashSequence = new AtomicLong();

  /** Applications whose directory and marker this run created. */
  private final Set<String> markedApps = ConcurrentHashMap.newKeySet();

  /** {@code <app>/<shuffle>} this run wrote segments of: only those are deleted on the tier. */
  private final Set<String> writtenShuffles = ConcurrentHashMap.newKeySet();

  /**
   * Applications an earlier run may have written here, kept for a restart: deleted on the tier
   * whatever this run wrote.
   */
  private final Set<String> keptApps = ConcurrentHashMap.newKeySet();

  /** Null while writable. */
  private volatile String unwritableReason;

  private volatile long unwritableSinceNanos;

  private HdfsTier(
      FileSystem fs,
      HdfsLogin login,
      Path root,
      int flushThreads,
      int readThreads,
      LongSupplier nanoClock) {
    this.fs = fs;
    this.login = login;
    this.root = root;
    this.nanoClock = nanoClock;
    this.flushExecutor = pool(flushThreads, "sluice-flush-hdfs-");
    this.readExecutor = pool(readThreads, "sluice-read-hdfs-");
    this.deleter = pool(1, "sluice-deleter-hdfs-");
  }

  /**
   * Opens the tier under {@code dir} for the server with the given host and local dirs, and deletes
   * what an earlier run of that server left there (except the applications in {@code keep}).
   *
   * @param dir a Hadoop file system URI ({@code hdfs://namenode:8020/sluice}); Hadoop's own
   *     settings come from its site files on the class path ({@code HADOOP_CONF_DIR})
   */
  public static HdfsTier open(
      String dir,
      String host,
      List<java.nio.file.Path> localDirs,
      int flushThreads,
      int readThreads,
      Set<String> keep)
      throws IOException {
    return open(dir, host, localDirs, flushThreads, readThreads, keep, null, null);
  }

  /**
   * As {@link #open(String, String, List, int, int, Set)}, on a secured HDFS when {@code keytab} is
   * given: the tier acts as the Kerberos principal it names.
   *
   * @param keytabKey the setting that named the keytab, for error messages
   */
  public static HdfsTier open(
      String dir,
      String host,
      List<java.nio.file.Path> localDirs,
      int flushThreads,
      int readThreads,
      Set<String> keep,
      HdfsLogin.Keytab keytab,
      String keytabKey)
      throws IOException {
    URI uri = URI.create(dir);
    // A file system of its own: FileSystem.get shares one per URI and user within the JVM, and
    // closing a shared one would break every other user of it.
    Configuration conf = new Configuration();
    // Hadoop would close the file system in its own shutdown hook, which runs beside the server's
    // (a SIGTERM stop): reads, flushes and deletes of the drain would fail. close() closes it.
    conf.setBoolean("fs.automatic.close", false);
    HdfsLogin login = keytab == null ? null : HdfsLogin.start(conf, keytab, keytabKey);
    FileSystem fs = null;
    try {
      fs =
          login == null
              ? FileSystem.newInstance(uri, conf)
              : login.run(() -> FileSystem.newInstance(uri, conf));
      Path root = new Path(fs.makeQualified(new Path(uri)), serverDirName(host, localDirs));
      fs.mkdirs(root);
      HdfsTier tier = new HdfsTier(fs, login, root, flushThreads, readThreads, System::nanoTime);
      tier.deleteLeftovers(keep);
      return tier;
    } catch (IOException | RuntimeException e) {
      if (fs != null) {
        fs.close();
      }
      if (login != null) {
        login.close();
      }
      throw e;
    }
  }

  /**
   * {@code <host>-<hash of the local dirs>}: stable across restarts of one server, distinct for
   * servers that share a host (their local dirs must differ) and for hosts that use the same paths.
   */
  static String serverDirName(String host, List<java.nio.file.Path> localDirs) {
    CRC32 crc = new CRC32();
    localDirs.stream()
        .map(p -> p.toAbsolutePath().normalize().toString())
        .sorted()
        .forEach(s -> crc.update((s + "\n").getBytes(StandardCharsets.UTF_8)));
    String safeHost = host.replaceAll("[^A-Za-z0-9._-]", "_");
    return safeHost + "-" + String.format("%08x", crc.getValue());
  }

  /** The Kerberos login the tier acts as, or null on an HDFS without Kerberos. */
  public HdfsLogin login() {
    return login;
  }

  /** This server's directory on the tier. */
  public Path root() {
    return root;
  }

  /** Whether flushes may go here now: false for a while after a write failed. */
  public boolean isWritable() {
    if (unwritableReason == null) {
      return true;
    }
    if (nanoClock.getAsLong() - unwritableSinceNanos >= TimeUnit.SECONDS.toNanos(RETRY_SECONDS)) {
      unwritableReason = null;
      LOG.info("HDFS tier {} back in use", root);
      return true;
    }
    return false;
  }

  /** Why the tier takes no writes now, or null. */
  public String unwritableReason() {
    return isWritable() ? null : unwritableReason;
  }

  void markUnwritable(IOException e) {
    unwritableSinceNanos = nanoClock.getAsLong();
    if (unwritableReason == null) {
      LOG.warn(
          "HDFS tier {} takes no flushes for {} s after a failed write: {}",
          root,
          RETRY_SECONDS,
          e.toString());
    }
    unwritableReason = e.toString();
  }

  /** Threads that flush partitions to the tier ({@code hdfs.flush.threads}). */
  public Executor flushExecutor() {
    return flushExecutor;
  }

  /** Threads that read segments for readers ({@code hdfs.read.threads}): no event loop waits. */
  public Executor readExecutor() {
    return readExecutor;
  }

  /** The file for generation {@code name} ({@code <partition>-<N>}) of a partition. */
  Path segmentFile(String appId, int shuffleId, String name) {
    return new Path(shuffleDir(appId, shuffleId), name + SEGMENT_SUFFIX);
  }

  /**
   * Writes {@code blocks}' bytes and then {@code index} to a new file; returns the bytes of data
   * written. The file is complete (closed) when this returns; on failure nothing of it is left.
   */
  long writeSegment(
      Path file, String appId, List<? extends FlushableBlock> blocks, ByteBuffer index)
      throws IOException {
    createAppDir(appId);
    writtenShuffles.add(appId + "/" + file.getParent().getName());
    long written = 0;
    // Overwrites: a file under this name is one no partition reads any more (one an earlier run
    // left of a partition its restart could not serve again).
    try (FSDataOutputStream out = fs.create(file, true)) {
      byte[] chunk = new byte[COPY_CHUNK];
      for (FlushableBlock block : blocks) {
        ByteBuf data = block.data();
        int at = data.readerIndex();
        int end = data.writerIndex();
        while (at < end) {
          int n = Math.min(chunk.length, end - at);
          data.getBytes(at, chunk, 0, n);
          out.write(chunk, 0, n);
          at += n;
        }
        written += end - data.readerIndex();
      }
      out.write(index.array(), index.arrayOffset() + index.position(), index.remaining());
    } catch (IOException | RuntimeException e) {
      deleteQuietly(file);
      throw e;
    }
    return written;
  }

  /** The length of {@code file}. */
  long length(Path file) throws IOException {
    return fs.getFileStatus(file).getLen();
  }

  /** Reads {@code length} bytes at {@code position} of {@code file} into {@code into}. */
  void read(Path file, long position, int length, ByteBuf into) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      if (into.nioBufferCount() == 1 && in.hasCapability(StreamCapabilities.PREADBYTEBUFFER)) {
        // Straight into the answer's buffer (HDFS's own client can), with no heap copy between.
        into.ensureWritable(length);
        in.readFully(position, into.nioBuffer(into.writerIndex(), length));
        into.writerIndex(into.writerIndex() + length);
        return;
      }
      byte[] chunk = new byte[Math.min(COPY_CHUNK, Math.max(1, length))];
      long at = position;
      int left = length;
      while (left > 0) {
        int n = Math.min(chunk.length, left);
        in.readFully(at, chunk, 0, n);
        into.writeBytes(chunk, 0, n);
        at += n;
        left -= n;
      }
    }
  }

  /**
   * Deletes the shuffle's directory, in the background. Asks the name node nothing for a shuffle
   * that has nothing on the tier, so that unregistering does not wait on HDFS needlessly.
   */
  public void deleteShuffle(String appId, int shuffleId) {
    Path dir = shuffleDir(appId, shuffleId);
    if (writtenShuffles.remove(appId + "/" + shuffleId) || keptApps.contains(appId)) {
      discard(dir);
    }
  }

  /** Deletes the application's directory, in the background, if it has one on the tier. */
  public void deleteApplication(String appId) {
    Path dir = appDir(appId);
    boolean written = markedApps.remove(appId) | keptApps.remove(appId);
    writtenShuffles.removeIf(key -> key.startsWith(appId + "/"));
    if (written) {
      discard(dir);
    }
  }

  /** Waits until every deletion asked for so far is done; false if that took past the timeout. */
  public boolean awaitDeletions(long timeout, TimeUnit unit) throws InterruptedException {
    try {
      deleter.submit(() -> {}).get(timeout, unit);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException | RejectedExecutionException e) {
      return true;
    }
  }

  /** Lets queued flushes finish (up to a minute), stops the threads and closes the file system. */
  @Override
  public void close() throws IOException {
    flushExecutor.shutdown();
    readExecutor.shutdownNow();
    deleter.shutdown();
    try {
      if (!flushExecutor.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        LOG.warn(
            "Flushes to HDFS did not finish in time; stopped with {} still queued",
            flushExecutor.shutdownNow().size());
      }
      deleter.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      flushExecutor.shutdownNow();
      deleter.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      try {
        fs.close();
      } finally {
        if (login != null) {
          login.close();
        }
      }
    }
  }

  @Override
  public String toString() {
    return "HdfsTier[" + root + "]";
  }

  private Path appDir(String appId) {
    return new Path(root, SafeNames.checkAppId(appId));
  }

  private Path shuffleDir(String appId, int shuffleId) {
    if (shuffleId < 0) {
      throw new IllegalArgumentException("shuffle id must not be negative: " + shuffleId);
    }
    return new Path(appDir(appId), Integer.toString(shuffleId));
  }

  /**
   * The application's directory with the marker that lets a later start delete it, once per
   * application: concurrent creates of one file fail on HDFS (the first holds its lease).
   */
  private void createAppDir(String appId) throws IOException {
    if (markedApps.contains(appId)) {
      return;
    }
    synchronized (markedApps) {
      if (markedApps.contains(appId)) {
        return;
      }
      fs.mkdirs(appDir(appId));
      fs.create(new Path(appDir(appId), DiskManager.APP_MARKER), true).close();
      markedApps.add(appId);
    }
  }

  /**
   * Renames {@code dir} into the trash before this returns (one call to the name node), so that new
   * data under the same name cannot be taken by the deletion, and deletes it in the background.
   */
  private void discard(Path dir) {
    Path target =
        new Path(
            new Path(root, DiskManager.TRASH),
            dir.getName() + "-" + trashSequence.incrementAndGet());
    try {
      fs.mkdirs(target.getParent());
      if (!fs.rename(dir, target)) {
        if (fs.exists(dir)) {
          LOG.warn("Could not move {} into the trash; deleting it in place", dir);
          fs.delete(dir, true);
        }
        return;
      }
    } catch (FileNotFoundException e) {
      return; // nothing was written there
    } catch (IOException e) {
      LOG.warn("Could not delete {}: {}", dir, e.toString());
      return;
    }
    try {
      deleter.execute(
          () -> {
            try {
              fs.delete(target, true);
            } catch (IOException e) {
              LOG.warn("Could not delete {}: {}", target, e.toString());
            }
          });
    } catch (RejectedExecutionException e) {
      LOG.info("Server stopping; {} is left for its next start to delete", target);
    }
  }

  private void deleteLeftovers(Set<String> keep) throws IOException {
    fs.delete(new Path(root, DiskManager.TRASH), true);
    List<String> deleted = new ArrayList<>();
    for (FileStatus child : fs.listStatus(root)) {
      String name = child.getPath().getName();
      if (!child.isDirectory()
          || !SafeNames.isValidAppId(name)
          || !fs.exists(new Path(child.getPath(), DiskManager.APP_MARKER))) {
        continue; // not Sluice's
      }
      if (keep.contains(name)) {
        keptApps.add(name);
      } else {
        fs.delete(child.getPath(), true);
        deleted.add(name);
      }
    }
    if (!deleted.isEmpty()) {
      LOG.info("Deleted {} application dir(s) left in {} by an earlier run", deleted.size(), root);
    }
  }

  private void deleteQuietly(Path file) {
    try {
      fs.delete(file, false);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not delete {} after a failed write: {}", file, e.toString());
    }
  }

  private static ThreadPoolExecutor pool(int threads, String prefix) {
    AtomicInteger next = new AtomicInteger();
    return new ThreadPoolExecutor(
        threads,
        threads,
        0L,
        TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, prefix + next.getAndIncrement());
          t.setDaemon(true);
          return t;
        });
  }
}
