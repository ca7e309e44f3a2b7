package io.sluice.benchmark;

import java.util.Arrays;
import java.util.Locale;

/** Percentiles of a set of latencies in nanoseconds, and the rate they were achieved at. */
public record LatencyStats(
    int count, long p50Nanos, long p99Nanos, long maxNanos, double perSecond) {

  public static LatencyStats of(long[] nanos, long wallNanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new LatencyStats(
        sorted.length,
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        sorted[sorted.length - 1],
        sorted.length / (wallNanos / 1e9));
  }

  private static long percentile(long[] sorted, double p) {
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  public static String micros(long nanos) {
    return String.format(Locale.ROOT, "%.0f", nanos / 1e3);
  }
}
