package io.sluice.server.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's local directories ({@code local.dirs}): which are healthy, which one a new partition
 * goes to, and where a shuffle's files live ({@code <dir>/<appId>/<shuffleId>/}).
 *
 * <p>A directory that cannot be created or written at start-up, or whose writes later fail, is out
 * of rotation: {@link #pick()} never returns it and {@link LocalDisk#unhealthyReason()} says why. A
 * directory that was out only because it was full comes back once it has room again; one with I/O
 * errors stays out until the server restarts.
 *
 * <p>Deleting a shuffle or an application is quick for its caller whatever its size: its directory
 * is renamed on each disk into {@value #TRASH} (a name no application id can have) and the renamed
 * tree is deleted by a thread of its own, so that no commit or registration waits behind a
 * recursive delete, and the names are free for new data at once.
 *
 * <p>A restarted server knows no application, so the constructor deletes {@value #TRASH} and every
 * application directory left in its directories by an earlier run. It recognises them by the marker
 * file {@value #APP_MARKER} that every application directory gets when it is created, and leaves
 * anything else alone, so that a directory shared with other data by mistake does not lose any.
 */
public final class DiskManager implements Closeable {
  /** The reason given for a disk that ran out of space. */
  public static final String DISK_FULL = "disk full";

  private static final Logger LOG = LoggerFactory.getLogger(DiskManager.class);

  /** A full disk's free space is looked at again at most this often. */
  private static final long RECHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

  private static final long CLOSE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final String PROBE_FILE = ".sluice-write-probe";
  private static final int MAX_LOGGED_NAMES = 20;

  /** Where deleted trees wait for the deleter: '+' is not allowed in application ids. */
  static final String TRASH = "sluice+trash";

  /** Marks a directory this server created for an application, and so may delete. */
  static final String APP_MARKER = ".sluice-application";

  /** Read threads per disk by default ({@code read.threads.per.disk}). */
  public static final int DEFAULT_READ_THREADS = 2;

  private final ExecutorService deleter =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sluice-deleter");
            t.setDaemon(true);
            return t;
          });
  private final AtomicLong trashSequence = new AtomicLong();

  private final List<LocalDisk> disks;
  private final long minFreeBytes;
  private final LongSupplier nanoClock;
  private boolean closed;

  /** With {@link #DEFAULT_READ_THREADS} read threads per disk. */
  public DiskManager(List<Path> dirs, long minFreeBytes, int threadsPerDisk, FileIo io) {
    this(dirs, minFreeBytes, threadsPerDisk, DEFAULT_READ_THREADS, io, Set.of());
  }

  /**
   * @param threadsPerDisk flush threads per disk
   * @param readThreadsPerDisk threads per disk that read directly written data for readers
   * @param keep applications whose directories an earlier run left for this one (a restart manifest
   *     names them): not deleted at start
   */
  public DiskManager(
      List<Path> dirs,
      long minFreeBytes,
      int threadsPerDisk,
      int readThreadsPerDisk,
      FileIo io,
      Set<String> keep) {
    this(
        dirs,
        minFreeBytes,
        threadsPerDisk,
        readThreadsPerDisk,
        io,
        root -> root.toFile().getUsableSpace(),
        System::nanoTime,
        keep);
  }

  DiskManager(
      List<Path> dirs,
      long minFreeBytes,
      int threadsPerDisk,
      FileIo io,
      ToLongFunction<Path> usableSpace,
      LongSupplier nanoClock) {
    this(
        dirs,
        minFreeBytes,
        threadsPerDisk,
        DEFAULT_READ_THREADS,
        io,
        usableSpace,
        nanoClock,
        Set.of());
  }

  /**
   * @param usableSpace bytes still writable on the file system of a directory (0 if unknown)
   * @param nanoClock monotonic time, for the pace of full disks' re-checks
   */
  private DiskManager(
      List<Path> dirs,
      long minFreeBytes,
      int threadsPerDisk,
      int readThreadsPerDisk,
      FileIo io,
      ToLongFunction<Path> usableSpace,
      LongSupplier nanoClock,
      Set<String> keep) {
    if (minFreeBytes < 0) {
      throw new IllegalArgumentException(
          "minimum free bytes must not be negative: " + minFreeBytes);
    }
    if (threadsPerDisk < 1) {
      throw new IllegalArgumentException(
          "flush threads per disk must be at least 1: " + threadsPerDisk);
    }
    if (readThreadsPerDisk < 1) {
      throw new IllegalArgumentException(
          "read threads per disk must be at least 1: " + readThreadsPerDisk);
    }
    this.minFreeBytes = minFreeBytes;
    this.nanoClock = nanoClock;
    List<Path> roots = distinctRoots(dirs);
    List<LocalDisk> created = new ArrayList<>(roots.size());
    for (Path root : roots) {
      LocalDisk disk = new LocalDisk(root, threadsPerDisk, readThreadsPerDisk, usableSpace);
      String problem = probe(root, io);
      if (problem != null) {
        disk.markUnhealthy(problem, problem.equals(DISK_FULL), nanoClock.getAsLong());
        LOG.warn("Local dir {} is out of rotation from the start: {}", root, problem);
      }
      deleteLeftovers(root, keep);
      created.add(disk);
    }
    this.disks = List.copyOf(created);
  }

  /**
   * The healthy disk with the most usable space among those with at least {@code disk.min.free}
   * (and some) bytes free; null if there is none.
   */
  public synchronized LocalDisk pick() {
    readmitDisksWithRoom();
    LocalDisk best = null;
    long bestUsable = -1;
    for (LocalDisk disk : disks) {
      if (!disk.isHealthy()) {
        continue;
      }
      long usable = disk.usableBytes();
      if (hasRoom(usable) && usable > bestUsable) {
        best = disk;
        bestUsable = usable;
      }
    }
    return best;
  }

  /** The configured disk whose root holds {@code file}; null when none does. */
  public LocalDisk diskOf(Path file) {
    Path normalized = file.toAbsolutePath().normalize();
    for (LocalDisk disk : disks) {
      if (normalized.startsWith(disk.root().toAbsolutePath().normalize())) {
        return disk;
      }
    }
    return null;
  }

  /**
   * Takes {@code disk} out of rotation and logs it once. With {@link #DISK_FULL} as the reason the
   * disk comes back when it has room again; with any other reason it stays out.
   */
  public synchronized void markUnhealthy(LocalDisk disk, String reason) {
    if (disk.markUnhealthy(reason, DISK_FULL.equals(reason), nanoClock.getAsLong())) {
      LOG.warn("Local dir {} taken out of rotation: {}", disk.root(), reason);
    }
  }

  /**
   * Takes {@code disk} out of rotation for good because reading it failed: readers no longer see
   * the files it holds (their blocks are lost, and readers fall back to replicas or report them
   * lost), and nothing is written there again.
   */
  public synchronized void markUnreadable(LocalDisk disk, String reason) {
    if (disk.markUnreadable(reason, nanoClock.getAsLong())) {
      LOG.warn(
          "Local dir {} cannot be read and is out of rotation; its partitions' files there "
              + "are lost: {}",
          disk.root(),
          reason);
    }
  }

  /** The reason to give for a disk whose write failed with {@code e}. */
  public static String reasonFor(IOException e) {
    String message = e.getMessage();
    if (message != null
        && (message.contains("No space left on device")
            || message.contains("Disk quota exceeded"))) {
      return DISK_FULL;
    }
    return message == null ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + message;
  }

  public List<LocalDisk> disks() {
    return disks;
  }

  /** {@code <root>/<appId>/<shuffleId>} on {@code disk}; not created here. */
  public Path shuffleDir(LocalDisk disk, String appId, int shuffleId) {
    return appDir(disk, appId).resolve(Integer.toString(checkShuffleId(shuffleId)));
  }

  /**
   * Deletes the shuffle's files on every disk, in the background; failures are logged. Only inside
   * an application directory this server created (it carries the marker): a directory of that name
   * that something else put into a local dir is left alone.
   */
  public void deleteShuffle(String appId, int shuffleId) {
    SafeNames.checkAppId(appId);
    for (LocalDisk disk : disks) {
      if (isApplicationDir(appDir(disk, appId))) {
        discard(disk, shuffleDir(disk, appId, shuffleId));
      }
    }
  }

  /**
   * Deletes all of the application's files on every disk, in the background; failures are logged.
   * Only an application directory this server created (it carries the marker) is deleted.
   */
  public void deleteApplication(String appId) {
    SafeNames.checkAppId(appId);
    for (LocalDisk disk : disks) {
      Path dir = appDir(disk, appId);
      if (isApplicationDir(dir)) {
        discard(disk, dir);
      }
    }
  }

  /** Waits until every deletion asked for so far is done (or {@code timeout} passed). */
  public boolean awaitDeletions(Duration timeout) throws InterruptedException {
    try {
      deleter.submit(() -> {}).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException | RejectedExecutionException e) {
      return true;
    }
  }

  /**
   * Moves {@code dir} into the disk's trash at once and deletes it there in the background. When it
   * cannot be moved, it is deleted in place before this returns: deleting it later could take files
   * written meanwhile under the same name.
   */
  private void discard(LocalDisk disk, Path dir) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Path trash = disk.root().resolve(TRASH);
    Path target = trash.resolve(dir.getFileName() + "-" + trashSequence.incrementAndGet());
    try {
      Files.createDirectories(trash);
      Files.move(dir, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return; // deleted meanwhile
    } catch (IOException | UnsupportedOperationException e) {
      LOG.warn("Could not move {} into {} ({}); deleting it in place", dir, trash, e.toString());
      delete(dir);
      return;
    }
    try {
      deleter.execute(() -> delete(target));
    } catch (RejectedExecutionException e) {
      delete(target); // closing: nothing else is going on
    }
  }

  /**
   * Lets queued flushes finish (for up to a minute in all), then stops the flush threads; deletions
   * still queued are left to the next start, which empties the trash.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    deleter.shutdownNow();
    for (LocalDisk disk : disks) {
      // Reads still queued are dropped: their readers are told the server is stopping by their
      // connections closing.
      disk.readExecutorService().shutdownNow();
      disk.executorService().shutdown();
    }
    long deadline = System.nanoTime() + CLOSE_TIMEOUT_NANOS;
    try {
      for (LocalDisk disk : disks) {
        ThreadPoolExecutor executor = disk.executorService();
        long left = deadline - System.nanoTime();
        if (!executor.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
          List<Runnable> dropped = executor.shutdownNow();
          LOG.warn(
              "Flushes on {} did not finish in time; stopped with {} still queued",
              disk.root(),
              dropped.size());
        }
      }
    } catch (InterruptedException e) {
      for (LocalDisk disk : disks) {
        disk.executorService().shutdownNow();
      }
      Thread.currentThread().interrupt();
    }
  }

  private Path appDir(LocalDisk disk, String appId) {
    return disk.root().resolve(SafeNames.checkAppId(appId));
  }

  /**
   * Creates the shuffle's directory on {@code disk}, and its application's directory with the
   * marker that lets a later start delete it.
   */
  public void createShuffleDir(LocalDisk disk, String appId, int shuffleId) throws IOException {
    // A local dir that is gone (a failed or unmounted disk) is not created again: the data would
    // land on whatever file system holds its parent.
    if (!Files.isDirectory(disk.root())) {
      throw new NoSuchFileException(disk.root().toString(), null, "the local dir is gone");
    }
    Path app = appDir(disk, appId);
    Files.createDirectories(app);
    try {
      Files.createFile(app.resolve(APP_MARKER));
    } catch (FileAlreadyExistsException e) {
      // another partition of the application got there first
    }
    Files.createDirectories(shuffleDir(disk, appId, shuffleId));
  }

  private boolean hasRoom(long usable) {
    return usable > 0 && usable >= minFreeBytes;
  }

  private void readmitDisksWithRoom() {
    long now = nanoClock.getAsLong();
    for (LocalDisk disk : disks) {
      if (!disk.isOutBecauseFull() || now - disk.lastCheckNanos() < RECHECK_INTERVAL_NANOS) {
        continue;
      }
      long usable = disk.usableBytes();
      if (hasRoom(usable)) {
        disk.markHealthy();
        LOG.info("Local dir {} back in rotation: {} bytes free", disk.root(), usable);
      } else {
        disk.stillFull(now);
      }
    }
  }

  private static int checkShuffleId(int shuffleId) {
    if (shuffleId < 0) {
      throw new IllegalArgumentException("shuffle id must not be negative: " + shuffleId);
    }
    return shuffleId;
  }

  private static List<Path> distinctRoots(List<Path> dirs) {
    if (dirs.isEmpty()) {
      throw new IllegalArgumentException("no local directories configured");
    }
    List<Path> roots = new ArrayList<>(dirs.size());
    for (Path dir : dirs) {
      Path root = dir.toAbsolutePath().normalize();
      for (Path other : roots) {
        if (root.startsWith(other) || other.startsWith(root)) {
          throw new IllegalArgumentException(
              "local directories must be distinct and not nested: " + other + " and " + root);
        }
      }
      roots.add(root);
    }
    return roots;
  }

  /** Creates {@code root} and writes a byte into it; returns null if that worked, else why not. */
  private static String probe(Path root, FileIo io) {
    try {
      Files.createDirectories(root);
      Path probe = root.resolve(PROBE_FILE);
      try (FileChannel channel = io.openForAppend(probe)) {
        channel.write(ByteBuffer.wrap(new byte[] {1}), 0);
      } finally {
        Files.deleteIfExists(probe);
      }
      return null;
    } catch (IOException e) {
      return reasonFor(e);
    }
  }

  private static void deleteLeftovers(Path root, Set<String> keep) {
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Path trash = root.resolve(TRASH);
    if (Files.isDirectory(trash, LinkOption.NOFOLLOW_LINKS)) {
      delete(trash);
    }
    List<String> deleted = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(root)) {
      for (Path child : children) {
        if (isApplicationDir(child) && !keep.contains(child.getFileName().toString())) {
          delete(child);
          deleted.add(child.getFileName().toString());
        }
      }
    } catch (IOException | DirectoryIteratorException e) {
      LOG.warn("Could not look through {} for leftovers of an earlier run: {}", root, e.toString());
    }
    if (!deleted.isEmpty()) {
      LOG.info(
          "Deleted {} application dir(s) left in {} by an earlier run: {}{}",
          deleted.size(),
          root,
          String.join(", ", deleted.subList(0, Math.min(deleted.size(), MAX_LOGGED_NAMES))),
          deleted.size() > MAX_LOGGED_NAMES ? ", ..." : "");
    }
  }

  /** An application directory this class created: it holds the marker, and is no link. */
  private static boolean isApplicationDir(Path dir) {
    return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
        && SafeNames.isValidAppId(dir.getFileName().toString())
        && Files.isRegularFile(dir.resolve(APP_MARKER), LinkOption.NOFOLLOW_LINKS);
  }

  private static void delete(Path path) {
    try {
      DirectoryTrees.deleteRecursively(path);
    } catch (IOException e) {
      LOG.warn("Could not delete {}: {}", path, e.toString());
    }
  }
}
