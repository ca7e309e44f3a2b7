package io.sluice.server.flush;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LargestFirstTest {

  @Test
  void givesEveryIndexOnceInDescendingOrderOfSize() {
    Random random = new Random(7);
    for (int n : new int[] {0, 1, 2, 3, 10, 1000}) {
      long[] sizes = new long[n];
      for (int i = 0; i < n; i++) {
        sizes[i] = random.nextInt(50); // ties included
      }
      LargestFirst order = new LargestFirst(sizes);
      long[] taken = new long[n];
      boolean[] seen = new boolean[n];
      for (int k = 0; k < n; k++) {
        int i = order.next();
        assertFalse(seen[i], "index " + i + " given twice");
        seen[i] = true;
        taken[k] = sizes[i];
      }
      assertFalse(order.hasNext());
      long[] expected =
          Arrays.stream(sizes)
              .boxed()
              .sorted((a, b) -> Long.compare(b, a))
              .mapToLong(Long::longValue)
              .toArray();
      assertArrayEquals(expected, taken, "n = " + n);
    }
  }
}
