package io.sluice.client.core.read;

import io.sluice.client.core.BlockKey;
import io.sluice.common.shuffle.IndexEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns a partition's index into the reads that fetch exactly the blocks a reducer still needs:
 * wanted blocks that are adjacent on disk, or apart by a few bytes in which no block starts (the
 * zeros a server may leave before a block, see docs/protocol.md), are merged into one read of up to
 * a size limit, and bytes of blocks nobody wants (attempts Spark does not count, blocks already
 * read from memory) are never requested.
 */
final class RangePlanner {
  /**
   * The most bytes between two blocks of one index page that one read spans and drops: the zeros a
   * server leaves before a block are fewer. (Across a whole index, from a server before protocol 5,
   * a gap may also be a generation lost with its disk, which cannot be read: nothing is spanned
   * there.)
   */
  static final int MAX_SKIPPED_BYTES = 4095;

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
   * @param maxSkipped the most bytes between two blocks, in which no block starts, that one read
   *     spans: {@link #MAX_SKIPPED_BYTES} within an index page, 0 otherwise
   * @return the reads, in offset order
   */
  static List<DataRange> plan(
      List<IndexEntry> entries,
      long dataLength,
      BlockFilter filter,
      int maxRequest,
      int maxSkipped) {
    List<IndexEntry> wanted = new ArrayList<>();
    Set<BlockKey> planned = new HashSet<>();
    for (IndexEntry e : entries) {
      if (e.end() <= dataLength
          && filter.wants(e.taskAttemptId(), e.sequence())
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
      boolean joins =
          !run.isEmpty()
              && e.offset() >= runEnd
              && e.offset() - runEnd <= maxSkipped
              && !anyStarts(starts, runEnd, e.offset())
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
