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
    CommittedCounts counts = new CommittedCounts();
    assertArrayEquals(new int[] {-1, -1}, counts.countsOf(new long[] {0, 7}));
    assertArrayEquals(new int[0], counts.countsOf(new long[0]));
    assertEquals(0, counts.size());
    assertEquals(0, counts.heapBytes());
  }

  @Test
  void outOfOrderPutsAreFound() {
    CommittedCounts counts = new CommittedCounts();
    counts.put(50, 1);
    counts.put(20, 3);
    counts.put(90, 0);
    counts.put(10, 7);
    counts.put(Long.MAX_VALUE, 2);
    counts.put(-4, 5);
    assertArrayEquals(new int[] {5, 7, 3, -1, 1, 0, 2, -1},
        counts.countsOf(new long[] {-4, 10, 20, 30, 50, 90, Long.MAX_VALUE, Long.MIN_VALUE}));
    // Look-ups in any order, repeated.
    assertArrayEquals(new int[] {0, 7, 0}, counts.countsOf(new long[] {90, 10, 90}));
    assertEquals(6, counts.size());
  }

  @Test
  void aRepeatedCommitKeepsTheLastCount() {
    // In order: the repeat is found and updated in place.
    CommittedCounts inOrder = new CommittedCounts();
    inOrder.put(1, 1);
    inOrder.put(2, 2);
    inOrder.put(2, 5);
    assertArrayEquals(new int[] {1, 5}, inOrder.countsOf(new long[] {1, 2}));
    assertEquals(2, inOrder.size());

    // Out of order: the repeat is appended and wins when the arrays are sorted.
    CommittedCounts outOfOrder = new CommittedCounts();
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
      CommittedCounts counts = new CommittedCounts();
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
  void heapGrowsByAboutTwelveBytesPerCommit() {
    int n = 100_000;
    CommittedCounts counts = new CommittedCounts();
    // Out of order, so that the sort's copies are covered too.
    for (int i = 0; i < n; i++) {
      counts.put((i * 7919L) % n, i % 100);
    }
    assertEquals(n, counts.size());
    long bytes = counts.heapBytes();
    assertTrue(bytes >= 12L * n, bytes + " bytes for " + n + " commits");
    // Growth by half: at most a third of the arrays is slack.
    assertTrue(bytes <= 12L * n * 3 / 2 + 12 * 4, bytes + " bytes for " + n + " commits");
    assertEquals(6, counts.countsOf(new long[] {(6 * 7919L) % n})[0]);
  }
}
