package io.sluice.server.shuffle;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.RestartManifest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One partition of one shuffle on this server: the blocks still in memory, its files on disk, and
 * how many blocks each map attempt committed.
 *
 * <p>A block moves from {@code unflushed} to {@code flushing} when a flush takes it, and leaves
 * memory only after storage has made it readable from disk. Memory reads see both lists, so a
 * reader that reads memory first and then the index sees every block at least once; it drops
 * duplicates by (taskAttemptId, sequence).
 */
public final class PartitionState {
  private final int partitionId;
  private final Supplier<PartitionFiles> filesFactory;

  /**
   * Held while a flush writes this partition's files, and by deletion, so the two never overlap.
   */
  private final ReentrantLock storageLock = new ReentrantLock();

  private ArrayList<InMemoryBlock> unflushed = new ArrayList<>();
  private List<InMemoryBlock> flushing = List.of();
  private long unflushedBytes;
  private long flushingBytes;

  /** Blocks the flush under way took; 0 while none runs. Kept until they are freed. */
  private int flushingBlocks;

  private long nextSequence;
  private boolean flushQueued;
  private boolean deleted;

  /** Whether a block came from a writer, not as the last copy of a replica chain. */
  private boolean primaryBlocks;

  private PartitionFiles files;
  private final CommittedCounts committed;

  /**
   * @param attempts the numbering of its shuffle's map attempts, shared by its partitions
   */
  PartitionState(int partitionId, Supplier<PartitionFiles> filesFactory, AttemptNumbers attempts) {
    this.partitionId = partitionId;
    this.filesFactory = filesFactory;
    this.committed = new CommittedCounts(attempts);
  }

  public int partitionId() {
    return partitionId;
  }

  /**
   * Takes ownership of {@code data}. Returns false (and leaves the buffer to the caller) when the
   * partition was deleted meanwhile.
   *
   * @param lastCopy whether the block came forwarded to this server as the last of its replica
   *     chain (see {@link #holdsOnlyLastCopies})
   */
  public synchronized boolean add(BlockDescriptor descriptor, ByteBuf data, boolean lastCopy) {
    if (deleted) {
      return false;
    }
    primaryBlocks |= !lastCopy;
    unflushed.add(new InMemoryBlock(descriptor, data, nextSequence++));
    unflushedBytes += descriptor.length();
    return true;
  }

  /**
   * Whether every block of the partition here is the last copy of a replica chain: readers read it
   * first only in a task's later attempt or when the servers before it in the chain are lost or
   * slow, so its files are written around the page cache ({@link PartitionFiles#append(List,
   * boolean)}).
   */
  public synchronized boolean holdsOnlyLastCopies() {
    return !primaryBlocks;
  }

  public synchronized long unflushedBytes() {
    return unflushedBytes;
  }

  /** Blocks in memory not yet taken for a flush. */
  public synchronized int unflushedBlocks() {
    return unflushed.size();
  }

  /** Bytes in memory, flushing or not. */
  public synchronized long memoryBytes() {
    return unflushedBytes + flushingBytes;
  }

  /**
   * Marks this partition as queued for flushing; false if it already is (or is deleted, or has
   * nothing to flush), so that each partition has at most one flush queued or running.
   */
  public synchronized boolean tryQueueFlush() {
    if (flushQueued || deleted || unflushed.isEmpty()) {
      return false;
    }
    flushQueued = true;
    return true;
  }

  /**
   * What the flush queued or running for this partition will give back to the push pool, each block
   * counting at least {@code minBlockCharge}; 0 when none is. A queued flush takes the blocks in
   * memory when it starts, a running one frees those it took.
   */
  public synchronized long bytesOnTheirWayToDisk(long minBlockCharge) {
    if (!flushQueued) {
      return 0;
    }
    if (flushingBlocks == 0) {
      return Math.max(unflushedBytes, (long) unflushed.size() * minBlockCharge);
    }
    return Math.max(flushingBytes, (long) flushingBlocks * minBlockCharge);
  }

  /** Undoes {@link #tryQueueFlush()} when no flush could be started. */
  public synchronized void cancelQueuedFlush() {
    flushQueued = false;
  }

  /** Moves every unflushed block to the flushing list and returns them (still readable). */
  synchronized List<InMemoryBlock> takeForFlush() {
    List<InMemoryBlock> taken = unflushed;
    flushing = taken;
    flushingBytes = unflushedBytes;
    flushingBlocks = taken.size();
    unflushed = new ArrayList<>();
    unflushedBytes = 0;
    return taken;
  }

  /**
   * The blocks are readable from disk: readers no longer find them in memory. They still count as
   * in memory, and the flush as running, until {@link #flushEnded()}, once they are freed: a flush
   * round must not plan for memory that is about to come back.
   */
  synchronized void flushWritten() {
    flushing = List.of();
  }

  /** The flushed blocks were freed: the partition may be queued again. */
  synchronized void flushEnded() {
    flushing = List.of();
    flushingBytes = 0;
    flushingBlocks = 0;
    flushQueued = false;
  }

  /**
   * Storage could not take the blocks: puts them back in front, in their original order. Returns
   * false when the partition was deleted meanwhile; the caller then frees them.
   */
  synchronized boolean flushFailed(List<InMemoryBlock> blocks) {
    flushing = List.of();
    flushingBytes = 0;
    flushingBlocks = 0;
    flushQueued = false;
    if (deleted) {
      return false;
    }
    ArrayList<InMemoryBlock> restored = new ArrayList<>(blocks.size() + unflushed.size());
    restored.addAll(blocks);
    restored.addAll(unflushed);
    unflushed = restored;
    for (InMemoryBlock b : blocks) {
      unflushedBytes += b.length();
    }
    return true;
  }

  ReentrantLock storageLock() {
    return storageLock;
  }

  public synchronized boolean isDeleted() {
    return deleted;
  }

  /** The partition's files, created on first use; null once deleted. */
  synchronized PartitionFiles filesForWrite() {
    if (deleted) {
      return null;
    }
    if (files == null) {
      files = filesFactory.get();
    }
    return files;
  }

  /**
   * The threads its next flush should run on (those of the disk or tier it will write to); null
   * when no storage can take it now, or the partition is deleted.
   */
  public Executor flushExecutor() {
    PartitionFiles f = filesForWrite();
    return f == null ? null : f.flushExecutor();
  }

  /** The partition's files if anything was ever flushed. */
  public synchronized PartitionFiles files() {
    return files;
  }

  /**
   * In-memory blocks with a sequence after {@code afterSequence} whose bytes and descriptors take
   * up to {@code maxBytes} of an answer, as retained slices (at least one block even if larger),
   * only of the given map attempts (sorted; empty for all). The caller owns {@link
   * MemoryRead#data()}. The read's last sequence is that of the last block looked at, returned or
   * not, so that paging moves past blocks left out.
   */
  public synchronized MemoryRead readMemory(
      long afterSequence, long maxBytes, long[] sortedAttempts, ByteBufAllocator alloc) {
    List<BlockDescriptor> descriptors = new ArrayList<>();
    CompositeByteBuf data = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
    long bytes = 0;
    long last = afterSequence;
    boolean more = false;
    for (List<InMemoryBlock> list : List.of(flushing, unflushed)) {
      for (InMemoryBlock b : list) {
        if (b.arrival() <= afterSequence) {
          continue;
        }
        if (sortedAttempts.length > 0
            && Arrays.binarySearch(sortedAttempts, b.taskAttemptId()) < 0) {
          last = b.arrival();
          continue;
        }
        long cost = (long) BlockDescriptor.ENCODED_LENGTH + b.length();
        if (!descriptors.isEmpty() && bytes + cost > maxBytes) {
          more = true;
          break;
        }
        descriptors.add(b.descriptor());
        data.addComponent(true, b.data().retainedSlice(0, b.length()));
        bytes += cost;
        last = b.arrival();
      }
      if (more) {
        break;
      }
    }
    return new MemoryRead(descriptors, data, last, more);
  }

  /**
   * Records how many blocks one map attempt wrote to this partition.
   *
   * @param attemptNumber the attempt's number in its shuffle ({@link ShuffleState#attemptNumber})
   */
  public synchronized void commit(int attemptNumber, int blockCount) {
    if (!deleted) {
      committed.putNumbered(attemptNumber, blockCount);
    }
  }

  /** The block count each of {@code taskAttemptIds} committed here, -1 where none. */
  public synchronized int[] committedCounts(long[] taskAttemptIds) {
    return committed.countsOf(taskAttemptIds);
  }

  /**
   * The partition as a restart manifest records it: its files and its commits. Only for a partition
   * with nothing left in memory (the server flushed everything before it stops).
   */
  synchronized RestartManifest.Partition forRestart() {
    if (!unflushed.isEmpty() || !flushing.isEmpty()) {
      throw new IllegalStateException(
          "partition " + partitionId + " still holds " + memoryBytes() + " bytes in memory");
    }
    return new RestartManifest.Partition(
        partitionId,
        files == null ? List.of() : files.generationsForRestart(),
        committed.attempts(),
        committed.counts());
  }

  /** Takes back what an earlier run of the server held: its files, then its commits. */
  synchronized void restore(RestartManifest.Partition restored) throws IOException {
    if (!restored.generations().isEmpty()) {
      PartitionFiles restoredFiles = filesFactory.get();
      restoredFiles.restore(restored.generations());
      files = restoredFiles;
    }
    for (int i = 0; i < restored.attempts().length; i++) {
      committed.put(restored.attempts()[i], restored.counts()[i]);
    }
  }

  /** Heap held by this partition's commit records. */
  public synchronized long commitHeapBytes() {
    return committed.heapBytes();
  }

  /** Frees the unflushed memory and keeps the files (the server stops for a restart). */
  void forgetMemory(Consumer<ByteBuf> free) {
    markDeletedAndFree(free);
  }

  /**
   * Deletes the partition: frees its unflushed memory through {@code free} and lets go of its
   * files, which go with the shuffle's directories that the caller removes next ({@code
   * ShuffleStore.unregisterShuffle}, {@code unregisterApplication}). A flush in progress finishes
   * first (it holds the storage lock) and frees its own blocks.
   */
  void delete(Consumer<ByteBuf> free) {
    if (!markDeletedAndFree(free)) {
      return;
    }
    storageLock.lock();
    try {
      PartitionFiles f;
      synchronized (this) {
        f = files;
      }
      if (f != null) {
        // The caller removes the shuffle's directories whole, in the background.
        f.forget();
      }
    } finally {
      storageLock.unlock();
    }
  }

  /**
   * Marks the partition deleted, so that nothing is added any more, and frees its unflushed blocks
   * through {@code free}; false (and nothing done) if it was deleted before.
   */
  private boolean markDeletedAndFree(Consumer<ByteBuf> free) {
    List<InMemoryBlock> toFree;
    synchronized (this) {
      if (deleted) {
        return false;
      }
      deleted = true;
      toFree = unflushed;
      unflushed = new ArrayList<>();
      unflushedBytes = 0;
    }
    for (InMemoryBlock b : toFree) {
      free.accept(b.data());
    }
    return true;
  }

  /** The result of a memory read: descriptors in order and their bytes back to back. */
  public record MemoryRead(
      List<BlockDescriptor> blocks, ByteBuf data, long lastSequence, boolean hasMore) {}
}
