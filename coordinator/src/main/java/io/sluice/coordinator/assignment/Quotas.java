package io.sluice.coordinator.assignment;

import java.util.Arrays;

/**
 * Splits a number of partitions among servers in proportion to their weights, by largest remainder:
 * each gets the floor of its exact share, and the partitions left over go to the largest fractional
 * parts (ties to the earlier server). Deterministic, and no server is off its exact share by one or
 * more.
 */
final class Quotas {
  private Quotas() {}

  /** Shares of {@code total} for {@code weights}; equal shares when no weight is positive. */
  static int[] split(int total, double[] weights) {
    int n = weights.length;
    double sum = 0;
    for (double w : weights) {
      sum += w > 0 ? w : 0;
    }
    boolean equal = !(sum > 0) || Double.isInfinite(sum);
    int[] quotas = new int[n];
    double[] fractions = new double[n];
    long given = 0;
    for (int i = 0; i < n; i++) {
      double share = equal ? 1.0 / n : (weights[i] > 0 ? weights[i] / sum : 0);
      double exact = total * share;
      quotas[i] = (int) Math.min(total, Math.floor(exact));
      fractions[i] = exact - quotas[i];
      given += quotas[i];
    }
    Integer[] byFraction = new Integer[n];
    for (int i = 0; i < n; i++) {
      byFraction[i] = i;
    }
    Arrays.sort(byFraction, (a, b) -> {
      int c = Double.compare(fractions[b], fractions[a]);
      return c != 0 ? c : Integer.compare(a, b);
    });
    // Rounding in floating point can leave the floors a little off the total either way.
    for (int k = 0; given < total; k = (k + 1) % n) {
      quotas[byFraction[k]]++;
      given++;
    }
    for (int k = n - 1; given > total; k = (k - 1 + n) % n) {
      if (quotas[byFraction[k]] > 0) {
        quotas[byFraction[k]]--;
        given--;
      }
    }
    return quotas;
  }
}
