package io.sluice.benchmark.tpc;

import java.util.HashMap;
import java.util.Map;

/**
 * Picks values out of a Prometheus text exposition: {@code name{labels} value} lines. Series of one
 * name with different labels are added up (e.g. the GC time of each collector), unless the caller
 * asks for one label set, as in {@code jvm_memory_bytes_used{area="heap"}}.
 */
final class PrometheusText {
  private PrometheusText() {}

  /**
   * The values of the requested series; a key is a metric name, or a name with its exact labels.
   */
  static Map<String, Double> read(String exposition, Iterable<String> wanted) {
    Map<String, Double> out = new HashMap<>();
    for (String line : exposition.split("\n")) {
      if (line.isEmpty() || line.charAt(0) == '#') {
        continue;
      }
      int space = line.lastIndexOf(' ');
      if (space <= 0) {
        continue;
      }
      // simpleclient writes a trailing comma after the last label: name{a="b",}
      String series = line.substring(0, space).trim().replace(",}", "}");
      int brace = series.indexOf('{');
      String name = brace < 0 ? series : series.substring(0, brace);
      double value;
      try {
        value = Double.parseDouble(line.substring(space + 1).trim());
      } catch (NumberFormatException e) {
        continue;
      }
      for (String key : wanted) {
        if (key.equals(name) || key.equals(series)) {
          out.merge(key, value, Double::sum);
        }
      }
    }
    return out;
  }
}
