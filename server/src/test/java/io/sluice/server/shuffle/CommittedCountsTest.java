package io.sluice.server.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The dense per-partition record of how many blocks each map attempt committed. */
class CommittedCountsTest {

  @Test
  void emptyRecordKnowsNoAttempt() {
    CommittedCounts counts =
        new CommittedCounts(new AttemptNumbers(new CommitBudget(Long.MAX_VALUE)));
    assertArrayEquals(new int[] {-1, -1}, counts.countsOf(new long[] {0, 7}));
    assertArrayEquals(new int[0], counts.countsOf(new long[0]));
    assertEquals(0, counts.size());
    assertEquals(0, counts.heapBytes());
  }

  @Test
  void outOfOrderPutsAreFound() {
    CommittedCounts counts =
        new CommittedCounts(new AttemptNumbers(new CommitBudget(Long.MAX_VALUE)));
    counts.put(50, 1);
    counts.put(20, 3);
    counts.put(90, 0);
    counts.put(10, 7);
    counts.put(Long.MAX_VALUE, 2);
    counts.put(-4, 5);
    assertArrayEquals(
        new int[] {5, 7, 3, -1, 1, 0, 2, -1},
        counts.countsOf(new long[] {-4, 10, 20, 30, 50, 90, Long.MAX_VALUE, Long.MIN_VALUE}));
    // Look-ups in any order, repeated.
    assertArrayEquals(new int[] {0, 7, 0}, counts.countsOf(new long[] {90, 10, 90}));
    assertEquals(6, counts.size());
  }

  @Test
  void aRepeatedCommitKeepsTheLastCount() {
    // In order: the repeat is found and updated in place.
    CommittedCounts inOrder =
        new CommittedCounts(new AttemptNumbers(new CommitBudget(Long.MAX_VALUE)));
    inOrder.put(1, 1);
    inOrder.put(2, 2);
    inOrder.put(2, 5);
    assertArrayEquals(new int[] {1, 5}, inOrder.countsOf(new long[] {1, 2}));
    assertEquals(2, inOrder.size());

    // Out of order: the repeat is appended and wins when the arrays are sorted.
    CommittedCounts outOfOrder =
        new CommittedCounts(new AttemptNumbers(new CommitBudget(Long.MAX_VALUE)));
    outOfOrder.put(5, 1);
    outOfOrder.put(2, 3);
    outOfOrder.put(5, 9);
    outOfOrder.put(2, 4);
    outOfOrder.put(2, 6);
    assertArrayEquals(new int[] {6, 9}, outOfOrder.countsOf(new long[] {2, 5}));
    assertEquals(2, outOfOrder.size());

    // After a look-up sorted them, a repeat updates in place again; then out of order once more.
    outOfOrder.put(5, 11);
    outOfOrder.put(1, 1);
    outOfOrder.put(5, 12);
    assertArrayEquals(new int[] {1, 6, 12}, outOfOrder.countsOf(new long[] {1, 2, 5}));
    assertEquals(3, outOfOrder.size());
  }

  @Test
  void agreesWithAMapUnderRandomCommitsAndLookUps() {
    Random random = new Random(17);
    for (int round = 0; round < 50; round++) {
      CommittedCounts counts =
          new CommittedCounts(new AttemptNumbers(new CommitBudget(Long.MAX_VALUE)));
      Map<Long, Integer> model = new HashMap<>();
      int range = 1 + random.nextInt(200);
      for (int i = 0; i < 500; i++) {
        if (random.nextInt(10) == 0) {
          long[] wanted = random.longs(1 + random.nextInt(10), 0, range + 5).toArray();
          int[] got = counts.countsOf(wanted);
          for (int j = 0; j < wanted.length; j++) {
            assertEquals(model.getOrDefault(wanted[j], -1), got[j], "attempt " + wanted[j]);
          }
          assertEquals(model.size(), counts.size());
        } else {
          long attempt = random.nextInt(range);
          int count = random.nextInt(1000);
          counts.put(attempt, count);
          model.put(attempt, count);
        }
      }
      long[] all = model.keySet().stream().mapToLong(Long::longValue).toArray();
      int[] got = counts.countsOf(all);
      for (int j = 0; j < all.length; j++) {
        assertEquals(model.get(all[j]), got[j]);
      }
    }
  }

  @Test
  void countsTooLargeForAByteAreKeptExactly() {
    CommittedCounts counts =
        new CommittedCounts(new AttemptNumbers(new CommitBudget(Long.MAX_VALUE)));
    counts.put(1, 253);
    counts.put(2, 254);
    counts.put(3, Integer.MAX_VALUE);
    counts.put(4, 100_000);
    assertArrayEquals(
        new int[] {253, 254, Integer.MAX_VALUE, 100_000}, counts.countsOf(new long[] {1, 2, 3, 4}));
    counts.put(3, 7); // a repeat with a small count leaves the side table
    counts.put(1, 1_000);
    assertArrayEquals(new int[] {1_000, 254, 7, 100_000}, counts.countsOf(new long[] {1, 2, 3, 4}));
    assertArrayEquals(new long[] {1, 2, 3, 4}, counts.attempts());
    assertArrayEquals(new int[] {1_000, 254, 7, 100_000}, counts.counts());
    assertEquals(4, counts.size());
  }

  @Test
  void partitionsOfAShuffleShareTheAttemptsAndTakeAboutAByteEach() {
    int maps = 10_000;
    AttemptNumbers numbers = new AttemptNumbers(new CommitBudget(Long.MAX_VALUE));
    CommittedCounts first = new CommittedCounts(numbers);
    CommittedCounts second = new CommittedCounts(numbers);
    for (int m = 0; m < maps; m++) {
      long attempt = 1_000_000L + (m * 7919L) % maps;
      first.put(attempt, m % 100);
      second.put(attempt, 1);
    }
    assertEquals(maps, first.size());
    assertTrue(first.heapBytes() <= maps * 3 / 2, first.heapBytes() + " bytes for " + maps);
    assertTrue(second.heapBytes() <= maps * 3 / 2, second.heapBytes() + " bytes for " + maps);
    assertEquals(6, first.countsOf(new long[] {1_000_000L + (6 * 7919L) % maps})[0]);
    assertEquals(1, second.countsOf(new long[] {1_000_000L})[0]);
    assertEquals(-1, second.countsOf(new long[] {999_999L})[0]);
  }
}
