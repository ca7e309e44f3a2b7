package io.sluice.benchmark.tpc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Reading numbers out of the maps the job and the poller produce, and simple statistics. */
final class Figures {
  private Figures() {}

  static long num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Number n ? n.longValue() : 0;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> list(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof List<?> l ? (List<Map<String, Object>>) l : List.of();
  }

  /** The sum of a figure over the stages of a query line. */
  static long stageSum(Map<String, Object> query, String key) {
    long sum = 0;
    for (Map<String, Object> s : list(query, "stages")) {
      sum += num(s, key);
    }
    return sum;
  }

  /** The sum of a figure over servers. */
  static long serverSum(Map<String, Object> query, String key) {
    long sum = 0;
    for (Map<String, Object> s : list(query, "servers")) {
      sum += num(s, key);
    }
    return sum;
  }

  /** The largest value of a figure over servers. */
  static long serverMax(Map<String, Object> query, String key) {
    long max = 0;
    for (Map<String, Object> s : list(query, "servers")) {
      max = Math.max(max, num(s, key));
    }
    return max;
  }

  static double median(Collection<? extends Number> values) {
    List<Double> sorted = new ArrayList<>();
    values.forEach(v -> sorted.add(v.doubleValue()));
    sorted.sort(null);
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static String seconds(double ms) {
    return String.format("%.1f", ms / 1000);
  }

  static String bytes(double b) {
    if (b >= 1L << 30) {
      return String.format("%.2f GiB", b / (1L << 30));
    } else if (b >= 1L << 20) {
      return String.format("%.0f MiB", b / (1L << 20));
    } else if (b >= 1L << 10) {
      return String.format("%.0f KiB", b / (1L << 10));
    }
    return String.format("%.0f B", b);
  }

  static String ratio(double r) {
    return Double.isNaN(r) || Double.isInfinite(r) ? "n/a" : String.format("%.2fx", r);
  }
}
