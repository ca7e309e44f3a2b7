package io.sluice.server.storage;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flushed data of one partition: a data file of blocks appended one after another (a block
 * written around the page cache from where it lies in memory starts at the next aligned offset, see
 * {@link DirectAppender}) and an index file of one {@link IndexEntry} per block, which says where
 * each starts.
 *
 * <p>Normally a partition has one data file and one index file on one disk. When a write fails, the
 * disk is taken out of rotation and the partition goes on in a new <em>generation</em> (a data and
 * an index file) on another disk. Offsets are logical: generation k starts where the earlier ones
 * end, and index entries carry logical offsets, so that readers see one continuous partition.
 *
 * <p>With an HDFS tier ({@link HdfsTier}), a batch that no local dir can take, or any batch once
 * the partition has grown past {@code hdfs.partition.threshold}, is written to a segment file of
 * its own on HDFS: a generation of one batch. The next batch goes back to a local dir when one can
 * take it. Readers read HDFS segments through the server ({@link ReadSnapshot#isRemote}).
 *
 * <p>Appends come from one flusher at a time (callers serialise per partition; appends are
 * serialised here as well). Reads come from any thread: they read a {@link ReadSnapshot}, which an
 * append replaces only after both its data and its index entries are written, so a reader never
 * sees a block whose bytes or index entry are incomplete. Files are opened per append and per read
 * and closed before the call returns, so a partition holds no descriptor between calls.
 *
 * <p>This class decides where each batch goes and what readers see; {@link BatchWriter} writes a
 * batch to a generation's files, {@link ReadSnapshot} serves reads of one moment, {@link
 * PartitionRestore} checks what a restart brings back.
 */
public final class PartitionFiles {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionFiles.class);

  private final DiskManager disks;

  /** Null without an HDFS tier. */
  private final HdfsTier hdfs;

  /** Flushed bytes past which batches go to HDFS; Long.MAX_VALUE for only when disks cannot. */
  private final long hdfsThreshold;

  private final FileIo io;
  private final BatchWriter writer;
  private final String appId;
  private final int shuffleId;
  private final int partitionId;

  /** What readers see; replaced (never changed) by appends. */
  private volatile ReadSnapshot snapshot;

  private final ReadContext reads;

  private final Object writeLock = new Object();

  /** The generation appends go to; null before the first append and after a failed one. */
  private volatile PartitionGeneration current;

  private int generationsOpened;

  /** Files of every generation opened, in order, for {@link #files()} and {@link #delete()}. */
  private final List<Path> files = new ArrayList<>();

  private boolean deleted;

  public PartitionFiles(
      DiskManager disks, FileIo io, String appId, int shuffleId, int partitionId) {
    this(disks, null, Long.MAX_VALUE, io, appId, shuffleId, partitionId);
  }

  /**
   * @param hdfs the HDFS tier, or null
   * @param hdfsThreshold flushed bytes past which the partition continues on {@code hdfs}
   */
  public PartitionFiles(
      DiskManager disks,
      HdfsTier hdfs,
      long hdfsThreshold,
      FileIo io,
      String appId,
      int shuffleId,
      int partitionId) {
    if (shuffleId < 0 || partitionId < 0) {
      throw new IllegalArgumentException(
          "shuffle and partition ids must not be negative: " + shuffleId + ", " + partitionId);
    }
    this.disks = disks;
    this.hdfs = hdfs;
    this.hdfsThreshold = hdfsThreshold;
    this.io = io;
    this.writer = new BatchWriter(io);
    this.appId = SafeNames.checkAppId(appId);
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.reads = new ReadContext(hdfs, io, this::readFailed, toString());
    this.snapshot = ReadSnapshot.empty(reads);
  }

  /**
   * Writes the blocks' bytes, then their index entries; only once both are written do readers see
   * them. A write that fails takes its disk out of rotation and the whole batch is written again in
   * a new generation on another disk. The blocks' buffers are read, not released.
   *
   * <p>After {@link #delete()} (or when the shuffle's directory was deleted under a running flush)
   * the blocks are discarded: nobody can read them any more.
   *
   * @return whether the batch went to the HDFS tier
   * @throws StorageUnavailableException if no disk could take the batch; none of it is readable
   */
  public boolean append(List<? extends FlushableBlock> blocks) throws StorageUnavailableException {
    return append(blocks, false);
  }

  /**
   * As {@link #append(List)}; with {@code bypassPageCache} the data goes to a local disk with
   * direct I/O ({@link DirectAppender}) where the disk and the calling thread (a flush thread)
   * allow it, for bytes that are unlikely to be read soon: what would otherwise fill the page cache
   * costs more CPU to put there than to write directly. Readers see the same file either way.
   */
  public boolean append(List<? extends FlushableBlock> blocks, boolean bypassPageCache)
      throws StorageUnavailableException {
    if (blocks.isEmpty()) {
      return false;
    }
    synchronized (writeLock) {
      if (deleted) {
        LOG.debug("Discarded {} blocks flushed after {} was deleted", blocks.size(), this);
        return false;
      }
      IOException lastFailure = null;
      boolean direct = bypassPageCache;
      LocalDisk directFailedOn = null;
      // Each failure takes a disk (or the HDFS tier) out of rotation, so this many attempts reach
      // every one.
      int attempts = disks.disks().size() + 2;
      for (int attempt = 0; attempt < attempts; attempt++) {
        PartitionGeneration generation = writableGeneration();
        if (generation == null) {
          break;
        }
        try {
          publish(write(generation, blocks, direct, directFailedOn != null), blocks.size());
          if (directFailedOn != null && directFailedOn == generation.disk()) {
            // A direct write failed here and the same batch went through the page cache: the
            // file system, not the disk, is at fault.
            LOG.warn(
                "Direct writes to {} failed ({}); its data files are written through the "
                    + "page cache from now on",
                directFailedOn.root(),
                lastFailure.toString());
            directFailedOn.refusesDirectWrites();
          }
          return generation.isRemote();
        } catch (BatchWriter.DirectWriteException e) {
          // Written again, same file, through the page cache, before the disk is judged: a file
          // system may take O_DIRECT at open and refuse the I/O itself. This happens once, and the
          // data is forced to the device: a failing device (EIO) would take the buffered write
          // and lose it at write-back, where the disk must be judged instead.
          lastFailure = e;
          directFailedOn = generation.disk();
          direct = false;
          attempt--;
        } catch (IOException e) {
          if (generation.isRemote()) {
            lastFailure = e;
            hdfs.markUnwritable(e);
            continue;
          }
          if (shuffleDirDeleted(generation, e)) {
            LOG.info(
                "Shuffle dir of {} was deleted while it was being flushed; its blocks are "
                    + "discarded",
                this);
            deleteFiles();
            return false;
          }
          lastFailure = e;
          current = null;
          disks.markUnhealthy(generation.disk(), DiskManager.reasonFor(e));
        }
      }
      throw new StorageUnavailableException(
          "no local dir"
              + (hdfs == null ? "" : " nor HDFS")
              + " can store "
              + blocks.size()
              + " blocks of "
              + this
              + ": all are full or failing",
          lastFailure);
    }
  }

  /** What readers see now; a later append or delete replaces it, never changes it. */
  public ReadSnapshot snapshot() {
    return snapshot;
  }

  /** Logical bytes readable. */
  public long dataLength() {
    return snapshot.dataLength();
  }

  public int blockCount() {
    return snapshot.blockCount();
  }

  /** The index entries of all readable blocks in order: see {@link ReadSnapshot#index}. */
  public ManagedBuffer index() throws IOException {
    return snapshot.index(ByteBufAllocator.DEFAULT);
  }

  /** Bytes of the logical data: see {@link ReadSnapshot#data}. */
  public ManagedBuffer data(long offset, int length) throws IOException {
    return snapshot.data(offset, length, ByteBufAllocator.DEFAULT);
  }

  /** Whether the bytes at {@code offset} live on HDFS: see {@link ReadSnapshot#isRemote}. */
  public boolean isRemote(long offset) {
    return snapshot.isRemote(offset);
  }

  /**
   * The disk that appends go to now, so that a flush can run on that disk's threads; null before
   * the first append, after a failed one, and after {@link #delete()} (the next append picks one).
   */
  public LocalDisk currentDisk() {
    PartitionGeneration g = current;
    return g == null ? null : g.disk();
  }

  /**
   * The threads the next append should run on: those of the disk (or the HDFS tier) it will write
   * to; null when nothing can take it now.
   */
  public Executor flushExecutor() {
    Object target = nextTarget();
    if (target instanceof LocalDisk disk) {
      return disk.flushExecutor();
    }
    return target == null ? null : hdfs.flushExecutor();
  }

  /**
   * Where the next append goes: the current generation's disk while it is healthy, else the local
   * dir with the most room, else the HDFS tier; the HDFS tier at once past the threshold (a local
   * dir while the tier takes nothing). A {@link LocalDisk}, the {@link HdfsTier}, or null.
   */
  private Object nextTarget() {
    boolean hdfsWritable = hdfs != null && hdfs.isWritable();
    if (hdfsWritable && snapshot.dataLength() >= hdfsThreshold) {
      return hdfs;
    }
    // Below the threshold, or past it while HDFS takes nothing: a local dir, if one can.
    PartitionGeneration g = current;
    if (g != null && g.disk().isHealthy()) {
      return g.disk();
    }
    LocalDisk disk = disks.pick();
    if (disk != null) {
      return disk;
    }
    return hdfsWritable ? hdfs : null;
  }

  /**
   * The generations for a restart manifest: those on disks that did not fail for reads (the others'
   * blocks are lost already; the gap they leave in the logical offsets stays a gap).
   */
  public List<RestartManifest.Generation> generationsForRestart() {
    List<RestartManifest.Generation> all = new ArrayList<>();
    for (PartitionGeneration g : snapshot.readableGenerations()) {
      if (g.isRemote()) {
        all.add(
            RestartManifest.Generation.segment(
                g.remoteFile().toString(), g.start(), g.dataLength(), g.blockCount()));
        continue;
      }
      all.add(
          new RestartManifest.Generation(
              g.dataFile(), g.indexFile(), g.start(), g.dataLength(), g.blockCount()));
    }
    return all;
  }

  /**
   * Serves again the generations an earlier run of this server wrote (from its restart manifest),
   * once {@link PartitionRestore} found that each lies in this partition's directory on a
   * configured disk and still holds what it held. The next append opens a new generation.
   *
   * @throws IOException naming what does not match; nothing is restored then
   */
  public void restore(List<RestartManifest.Generation> restored) throws IOException {
    synchronized (writeLock) {
      PartitionRestore.Restored checked =
          new PartitionRestore(disks, hdfs, appId, shuffleId, partitionId, toString())
              .check(restored);
      files.addAll(checked.files());
      generationsOpened = checked.nextGenerationNumber();
      snapshot =
          new ReadSnapshot(reads, checked.generations(), checked.end(), checked.blockCount());
    }
  }

  /** The data and index files of every generation opened, in order (some may not exist). */
  public List<Path> files() {
    synchronized (writeLock) {
      return List.copyOf(files);
    }
  }

  /**
   * Deletes the partition's local files; readers see an empty partition and later appends are
   * discarded. Waits for a running append to finish. Failures to delete are logged. Segments on
   * HDFS go with their shuffle's directory ({@link HdfsTier#deleteShuffle}), in one call.
   */
  public void delete() {
    synchronized (writeLock) {
      deleteFiles();
    }
  }

  /**
   * Lets go of the partition's files without deleting them, for a caller that removes the directory
   * holding them as a whole right after (unregistering renames the shuffle's or application's
   * directory into the trash, which a background thread deletes): the request then does not wait
   * for the files one by one. As after {@link #delete()}, nothing is readable and later appends are
   * discarded.
   */
  public void forget() {
    synchronized (writeLock) {
      deleted = true;
      current = null;
      snapshot = ReadSnapshot.empty(reads);
      files.clear();
    }
  }

  @Override
  public String toString() {
    return "partition " + appId + "/" + shuffleId + "/" + partitionId;
  }

  // ---- writing (under writeLock) ----

  private PartitionGeneration writableGeneration() {
    Object target = nextTarget();
    if (target == null) {
      return null;
    }
    if (current != null && target == current.disk()) {
      return current;
    }
    String name = partitionId + "-" + generationsOpened++;
    if (target instanceof LocalDisk disk) {
      Path dir = disks.shuffleDir(disk, appId, shuffleId);
      PartitionGeneration fresh =
          new PartitionGeneration(
              disk,
              dir.resolve(name + ".data"),
              dir.resolve(name + ".index"),
              null,
              snapshot.dataLength(),
              0,
              0,
              false);
      files.add(fresh.dataFile());
      files.add(fresh.indexFile());
      current = fresh;
      return fresh;
    }
    current = null;
    return new PartitionGeneration(
        null,
        null,
        null,
        hdfs.segmentFile(appId, shuffleId, name),
        snapshot.dataLength(),
        0,
        0,
        false);
  }

  /** Writes the batch at the end of {@code g}; returns {@code g} grown by it. */
  private PartitionGeneration write(
      PartitionGeneration g,
      List<? extends FlushableBlock> blocks,
      boolean bypassPageCache,
      boolean toDevice)
      throws IOException {
    if (g.isRemote()) {
      long[] starts = BatchWriter.backToBack(g.dataLength(), blocks);
      long written =
          hdfs.writeSegment(
              g.remoteFile(), appId, blocks, BatchWriter.indexEntries(g.start(), blocks, starts));
      return g.grownBy(written, blocks.size(), false);
    }
    if (g.dataLength() == 0) {
      disks.createShuffleDir(g.disk(), appId, shuffleId);
    }
    BatchWriter.Appended appended = writer.append(g, blocks, bypassPageCache, toDevice);
    return g.grownBy(appended.length() - g.dataLength(), blocks.size(), appended.direct());
  }

  private void publish(PartitionGeneration grown, int addedBlocks) {
    // An HDFS segment takes one batch; the next batch decides afresh where it goes.
    current = grown.isRemote() ? null : grown;
    ReadSnapshot old = snapshot;
    List<PartitionGeneration> generations = new ArrayList<>(old.generations());
    int last = generations.size() - 1;
    if (last >= 0
        && !grown.isRemote()
        && grown.dataFile().equals(generations.get(last).dataFile())) {
      generations.set(last, grown);
    } else {
      generations.add(grown);
    }
    snapshot =
        new ReadSnapshot(
            reads, generations, grown.end(), Math.addExact(old.blockCount(), addedBlocks));
  }

  /**
   * True if creating the shuffle's directory or opening a file failed because that directory
   * vanished from a disk that is still there: the shuffle was deleted while this flush ran, which
   * says nothing about the disk. A deletion racing {@code Files.createDirectories} surfaces as
   * FileAlreadyExistsException (the directory existed when it tried to create it, and was gone when
   * it checked).
   */
  private static boolean shuffleDirDeleted(PartitionGeneration g, IOException e) {
    return (e instanceof NoSuchFileException || e instanceof FileAlreadyExistsException)
        && Files.isDirectory(g.disk().root())
        && !Files.exists(g.dataFile().getParent());
  }

  private void deleteFiles() {
    deleted = true;
    current = null;
    snapshot = ReadSnapshot.empty(reads);
    for (Path file : files) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        LOG.warn("Could not delete {}: {}", file, e.toString());
      }
    }
    files.clear();
  }

  // ---- reading ----

  /**
   * Sending the bytes at {@code offset} failed after {@link #data} handed them out as a file
   * segment: sendfile reads the file only then, so a disk that fails or vanishes under a read shows
   * here first. Judged as a failed read (see {@link #readFailed}), on the disk's own threads, since
   * a failing disk may block the check: a broken connection or a file removed meanwhile says
   * nothing about the disk and leaves it in rotation.
   */
  public void sendFailed(long offset, IOException e) {
    PartitionGeneration g = snapshot.generationAt(offset);
    if (g == null || g.isRemote()) {
      return;
    }
    try {
      g.disk().flushExecutor().execute(() -> readFailed(g, e));
    } catch (RejectedExecutionException stopping) {
      // The server is stopping: the disk's state no longer matters.
    }
  }

  /**
   * A read of {@code g} failed. A disk whose directory is gone (unmounted, failed) or that answers
   * with I/O errors leaves rotation for good, so that no new data goes there; a file removed or cut
   * short on a disk that is still there (an operator, a shuffle deleted meanwhile) says nothing
   * about the disk.
   */
  private void readFailed(PartitionGeneration g, IOException e) {
    if (!Files.isDirectory(g.disk().root()) || isInputOutputError(e)) {
      disks.markUnreadable(g.disk(), DiskManager.reasonFor(e));
    }
  }

  /**
   * EIO, what a failing device answers. Other errors (too many open files, a permission, a file
   * removed or cut short) fail this read only: they say nothing certain about the disk.
   */
  private static boolean isInputOutputError(IOException e) {
    String message = e.getMessage();
    return message != null && message.contains("Input/output error");
  }
}
