package io.sluice.common.shuffle.read;

import io.sluice.common.shuffle.BlockKey;
import io.sluice.common.shuffle.IndexEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns a partition's index into the reads that fetch exactly the blocks a reducer still needs:
 * wanted blocks that are adjacent on disk, or apart by at most {@link #MAX_SKIPPED_BYTES} that no
 * block covers (the zeros a server may leave before a block, see docs/protocol.md), are merged
 * into one read of up to a size limit, and bytes of blocks nobody wants (attempts Spark does not
 * count, blocks already read from memory) are never requested.
 */
final class RangePlanner {
  /** The most bytes between two blocks, covered by no block, that one read spans and drops. */
  static final int MAX_SKIPPED_BYTES = 4096;

  /** Which blocks to read. */
  @FunctionalInterface
  interface BlockFilter {
    boolean wants(long taskAttemptId, int sequence);
  }

  private RangePlanner() {}

  /**
   * @param entries the partition's index entries
   * @param dataLength the length of the partition's data when the index was read; entries past it
   *     cannot be read from this snapshot and are left out
   * @param filter the blocks to read; an entry listed twice is read once
   * @param maxRequest the largest read that merges several blocks; a single larger block is read
   *     alone
   * @return the reads, in offset order
   */
  static List<DataRange> plan(
      List<IndexEntry> entries, long dataLength, BlockFilter filter, int maxRequest) {
    List<IndexEntry> wanted = new ArrayList<>();
    Set<BlockKey> planned = new HashSet<>();
    for (IndexEntry e : entries) {
      if (e.end() <= dataLength && filter.wants(e.taskAttemptId(), e.sequence())
          && planned.add(new BlockKey(e.taskAttemptId(), e.sequence()))) {
        wanted.add(e);
      }
    }
    wanted.sort(Comparator.comparingLong(IndexEntry::offset));
    long[] starts = entries.stream().mapToLong(IndexEntry::offset).sorted().toArray();

    List<DataRange> ranges = new ArrayList<>();
    List<IndexEntry> run = new ArrayList<>();
    long runStart = 0;
    long runEnd = 0;
    for (IndexEntry e : wanted) {
      boolean joins = !run.isEmpty() && e.offset() >= runEnd
          && e.offset() - runEnd <= MAX_SKIPPED_BYTES && !anyStarts(starts, runEnd, e.offset())
          && e.end() - runStart <= maxRequest;
      if (!joins) {
        if (!run.isEmpty()) {
          ranges.add(new DataRange(runStart, (int) (runEnd - runStart), run));
        }
        run = new ArrayList<>();
        runStart = e.offset();
      }
      run.add(e);
      runEnd = e.end();
    }
    if (!run.isEmpty()) {
      ranges.add(new DataRange(runStart, (int) (runEnd - runStart), run));
    }
    return ranges;
  }

  /** Whether a block starts in [from, to); {@code starts} sorted. */
  private static boolean anyStarts(long[] starts, long from, long to) {
    int i = Arrays.binarySearch(starts, from);
    if (i < 0) {
      i = -i - 1;
    }
    return i < starts.length && starts[i] < to;
  }
}
