package io.sluice.client.core.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.common.shuffle.IndexEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RangePlannerTest {
  private static final long A = 11;
  private static final long B = 12;
  private static final long NOT_COUNTED = 13;

  /** Entries laid out back to back from offset 0, as a data file holds them. */
  private static List<IndexEntry> layout(Object... attemptAndLength) {
    List<IndexEntry> entries = new ArrayList<>();
    long offset = 0;
    for (int i = 0; i < attemptAndLength.length; i += 2) {
      long attempt = (Long) attemptAndLength[i];
      int length = (Integer) attemptAndLength[i + 1];
      entries.add(new IndexEntry(offset, length, length, 0, attempt, i / 2));
      offset += length;
    }
    return entries;
  }

  /** Plans as for a page of the index, where reads may span the zeros before a block. */
  private static List<DataRange> plan(
      List<IndexEntry> entries, long dataLength, RangePlanner.BlockFilter filter, int maxRequest) {
    return RangePlanner.plan(
        entries, dataLength, filter, maxRequest, RangePlanner.MAX_SKIPPED_BYTES);
  }

  private static List<String> describe(List<DataRange> ranges) {
    return ranges.stream()
        .map(r -> r.offset() + "+" + r.length() + ":" + r.blocks().size())
        .toList();
  }

  private static final RangePlanner.BlockFilter COUNTED =
      (attempt, sequence) -> attempt == A || attempt == B;

  @Test
  void mergesAdjacentBlocksUpToTheLimit() {
    List<IndexEntry> entries = layout(A, 100, A, 100, B, 100, A, 100, B, 100);
    assertEquals(List.of("0+500:5"), describe(plan(entries, 500, COUNTED, 500)));
    assertEquals(
        List.of("0+200:2", "200+200:2", "400+100:1"), describe(plan(entries, 500, COUNTED, 250)));
  }

  @Test
  void neverRequestsTheBytesOfBlocksThatAreNotWanted() {
    List<IndexEntry> entries =
        layout(A, 100, NOT_COUNTED, 50, A, 100, B, 100, NOT_COUNTED, 10, NOT_COUNTED, 10, B, 30);
    List<DataRange> ranges = plan(entries, 400, COUNTED, 1 << 20);
    assertEquals(List.of("0+100:1", "150+200:2", "370+30:1"), describe(ranges));
    for (DataRange r : ranges) {
      for (IndexEntry b : r.blocks()) {
        assertEquals(true, b.taskAttemptId() != NOT_COUNTED);
      }
    }
  }

  @Test
  void readsAcrossFewBytesThatNoBlockCoversButNotAcrossBlocksOrMore() {
    int most = RangePlanner.MAX_SKIPPED_BYTES;
    List<IndexEntry> entries =
        List.of(
            new IndexEntry(0, 100, 100, 0, A, 0),
            new IndexEntry(100 + most, 100, 100, 0, A, 1), // after the most zeros one read spans
            new IndexEntry(300 + 2 * most, 100, 100, 0, A, 2), // one byte more: a read of its own
            new IndexEntry(400 + 2 * most + 10, 50, 50, 0, NOT_COUNTED, 0),
            new IndexEntry(400 + 2 * most + 100, 100, 100, 0, B, 0)); // after a block nobody wants
    long length = 500 + 2 * most + 100;
    assertEquals(
        List.of(
            "0+" + (200 + most) + ":2",
            (300 + 2 * most) + "+100:1",
            (400 + 2 * most + 100) + "+100:1"),
        describe(plan(entries, length, COUNTED, 1 << 20)));
    assertEquals(
        List.of(
            "0+100:1",
            (100 + most) + "+100:1",
            (300 + 2 * most) + "+100:1",
            (400 + 2 * most + 100) + "+100:1"),
        describe(plan(entries, length, COUNTED, 200 + most - 1)),
        "the bytes between count towards the request's limit");
    assertEquals(
        List.of(
            "0+100:1",
            (100 + most) + "+100:1",
            (300 + 2 * most) + "+100:1",
            (400 + 2 * most + 100) + "+100:1"),
        describe(RangePlanner.plan(entries, length, COUNTED, 1 << 20, 0)),
        "a whole index from an older server: a gap there may be a lost generation");
  }

  @Test
  void aBlockLargerThanTheLimitIsReadAlone() {
    List<IndexEntry> entries = layout(A, 10, A, 1000, A, 10);
    assertEquals(
        List.of("0+10:1", "10+1000:1", "1010+10:1"), describe(plan(entries, 1020, COUNTED, 100)));
  }

  @Test
  void skipsBlocksAlreadyReadAndEntriesListedTwice() {
    List<IndexEntry> entries = new ArrayList<>(layout(A, 100, A, 100, A, 100));
    entries.add(entries.get(2)); // the same block indexed twice
    Set<Integer> fromMemory = Set.of(entries.get(1).sequence());
    List<DataRange> ranges =
        plan(
            entries,
            300,
            (attempt, sequence) -> attempt == A && !fromMemory.contains(sequence),
            1 << 20);
    assertEquals(List.of("0+100:1", "200+100:1"), describe(ranges));
  }

  @Test
  void leavesOutEntriesPastTheDataLengthAndSortsByOffset() {
    List<IndexEntry> entries = new ArrayList<>(layout(A, 100, A, 100, A, 100));
    List<IndexEntry> shuffled = List.of(entries.get(2), entries.get(0), entries.get(1));
    assertEquals(List.of("0+200:2"), describe(plan(shuffled, 250, COUNTED, 1 << 20)));
  }

  @Test
  void keysDuplicatesByAttemptAndSequenceNotSequenceAlone() {
    // Every attempt numbers its blocks from 0: equal sequences of two attempts are two blocks.
    List<IndexEntry> entries =
        List.of(new IndexEntry(0, 10, 10, 0, A, 0), new IndexEntry(10, 10, 10, 0, B, 0));
    assertEquals(List.of("0+20:2"), describe(plan(entries, 20, COUNTED, 100)));
  }
}
