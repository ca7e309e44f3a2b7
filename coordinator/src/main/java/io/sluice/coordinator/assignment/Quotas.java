package io.sluice.coordinator.assignment;

import java.util.Arrays;

/**
 * Splits a number of copies among servers (or hosts) in proportion to their weights, none above its
 * cap: shares that would pass their cap are fixed at it and the rest is split again among the
 * others ("water filling"). Each share is the floor of its exact value, and what is left over goes
 * to the largest fractional parts, ties to the earlier entry. Deterministic, and no uncapped share
 * is off its exact value by one or more.
 */
final class Quotas {
  private Quotas() {}

  /**
   * @param caps the most each entry may take; they must sum to at least {@code total}
   * @return shares summing to {@code total}; equal among entries whose weights are all zero
   */
  static int[] split(long total, double[] weights, int[] caps) {
    int n = weights.length;
    long capacity = 0;
    for (int cap : caps) {
      capacity += cap;
    }
    if (capacity < total) {
      throw new IllegalArgumentException("caps sum to " + capacity + ", less than " + total);
    }
    int[] shares = new int[n];
    boolean[] fixed = new boolean[n];
    double[] exact = new double[n];
    long remaining = total;
    while (true) {
      double weightSum = 0;
      int open = 0;
      for (int i = 0; i < n; i++) {
        if (!fixed[i]) {
          weightSum += Math.max(0, weights[i]);
          open++;
        }
      }
      boolean equal = !(weightSum > 0) || Double.isInfinite(weightSum);
      boolean capped = false;
      for (int i = 0; i < n; i++) {
        if (fixed[i]) {
          continue;
        }
        double share = equal ? 1.0 / open : Math.max(0, weights[i]) / weightSum;
        exact[i] = remaining * share;
        if (exact[i] > caps[i]) {
          fixed[i] = true;
          shares[i] = caps[i];
          remaining -= caps[i];
          capped = true;
        }
      }
      if (!capped) {
        break;
      }
    }
    long given = 0;
    double[] fractions = new double[n];
    for (int i = 0; i < n; i++) {
      if (!fixed[i]) {
        shares[i] = (int) Math.min(caps[i], Math.floor(exact[i]));
        fractions[i] = exact[i] - shares[i];
        given += shares[i];
      }
    }
    Integer[] byFraction = new Integer[n];
    for (int i = 0; i < n; i++) {
      byFraction[i] = i;
    }
    Arrays.sort(
        byFraction,
        (a, b) -> {
          int c = Double.compare(fractions[b], fractions[a]);
          return c != 0 ? c : Integer.compare(a, b);
        });
    // Floating-point rounding can leave the floors a little off either way; the caps leave room.
    for (int k = 0; given < remaining; k = (k + 1) % n) {
      int i = byFraction[k];
      if (!fixed[i] && shares[i] < caps[i]) {
        shares[i]++;
        given++;
      }
    }
    for (int k = n - 1; given > remaining; k = (k - 1 + n) % n) {
      int i = byFraction[k];
      if (!fixed[i] && shares[i] > 0) {
        shares[i]--;
        given--;
      }
    }
    return shares;
  }
}
