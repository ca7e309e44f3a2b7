package io.sluice.benchmark.server;

import java.util.HashMap;
import java.util.Map;

/**
 * One reading of the server's {@code /metrics} (Prometheus text format): each series, with its labels,
 * and its value, taken at {@link #nanoTime()} on this JVM's clock.
 */
final class MetricsScrape {
  private final long nanoTime;
  private final Map<String, Double> series;

  private MetricsScrape(long nanoTime, Map<String, Double> series) {
    this.nanoTime = nanoTime;
    this.series = series;
  }

  /** Parses lines of {@code name{labels} value}; comments and blank lines are skipped. */
  static MetricsScrape parse(String text, long nanoTime) {
    Map<String, Double> series = new HashMap<>();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      int space = trimmed.lastIndexOf(' ');
      if (space <= 0) {
        continue;
      }
      try {
        series.put(trimmed.substring(0, space).strip(),
            Double.parseDouble(trimmed.substring(space + 1)));
      } catch (NumberFormatException e) {
        // Not a sample line; the exposition format has none such, but a bad line must not stop us.
      }
    }
    return new MetricsScrape(nanoTime, series);
  }

  long nanoTime() {
    return nanoTime;
  }

  /** The sum of every series of the metric, whatever its labels; 0 when absent. */
  double sum(String name) {
    double total = 0;
    for (Map.Entry<String, Double> e : series.entrySet()) {
      String key = e.getKey();
      if (key.equals(name) || key.startsWith(name + "{")) {
        total += e.getValue();
      }
    }
    return total;
  }

  /** The series of the metric whose labels contain {@code label} (e.g. {@code pool="direct"}). */
  double labelled(String name, String label) {
    double total = 0;
    for (Map.Entry<String, Double> e : series.entrySet()) {
      String key = e.getKey();
      if (key.startsWith(name + "{") && key.contains(label)) {
        total += e.getValue();
      }
    }
    return total;
  }
}
