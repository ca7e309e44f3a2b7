package io.sluice.testcluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One daemon's {@code /metrics} in the Prometheus text format 0.0.4, parsed. */
public final class MetricsScrape {
  private static final Pattern TYPE_LINE = Pattern.compile("^# TYPE (\\S+) (\\S+)$");
  private static final Pattern SAMPLE_LINE =
      Pattern.compile("^([A-Za-z_:][A-Za-z0-9_:]*)(?:\\{(.*)})? (\\S+).*$");
  private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"");
  private static final Set<String> SUFFIXES = Set.of("_bucket", "_count", "_sum", "_created");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** One sample line: its metric name, the text between the braces (or ""), and its value. */
  public record Sample(String name, String labels, double value) {}

  private final Map<String, String> types = new TreeMap<>();
  private final Map<String, Set<String>> sampleLabels = new TreeMap<>();
  private final List<Sample> samples = new ArrayList<>();

  private MetricsScrape(String text) {
    for (String line : text.split("\n")) {
      Matcher type = TYPE_LINE.matcher(line);
      if (type.matches()) {
        types.put(type.group(1), type.group(2));
        continue;
      }
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      Matcher sample = SAMPLE_LINE.matcher(line);
      if (sample.matches()) {
        Set<String> labels = sampleLabels.computeIfAbsent(sample.group(1), k -> new TreeSet<>());
        if (sample.group(2) != null) {
          Matcher label = LABEL_NAME.matcher(sample.group(2));
          while (label.find()) {
            labels.add(label.group(1));
          }
        }
        samples.add(
            new Sample(
                sample.group(1),
                sample.group(2) == null ? "" : sample.group(2),
                Double.parseDouble(sample.group(3))));
      }
    }
  }

  public static MetricsScrape of(String text) {
    return new MetricsScrape(text);
  }

  /** Scrapes {@code http://127.0.0.1:<httpPort>/metrics}; fails on any answer but 200. */
  public static MetricsScrape fetch(int httpPort) throws IOException, InterruptedException {
    return fetch("127.0.0.1", httpPort);
  }

  public static MetricsScrape fetch(String host, int httpPort)
      throws IOException, InterruptedException {
    return fetch(host, httpPort, Duration.ofSeconds(30));
  }

  /** As above, waiting at most {@code timeout} for the answer. */
  public static MetricsScrape fetch(String host, int httpPort, Duration timeout)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://" + host + ":" + httpPort + "/metrics"))
                .timeout(timeout)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "/metrics on port "
              + httpPort
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return new MetricsScrape(response.body());
  }

  /** The sum of a metric's samples over all label values; 0 when it has none. */
  public double sum(String name) {
    double sum = 0;
    for (Sample s : samples) {
      if (s.name().equals(name)) {
        sum += s.value();
      }
    }
    return sum;
  }

  public List<Sample> samples() {
    return samples;
  }

  /**
   * The metrics whose names start with {@code prefix}, with their types, leaving out the {@code
   * _created} gauges the client library adds next to counters, summaries and histograms.
   */
  public Map<String, String> metrics(String prefix) {
    Map<String, String> metrics = new TreeMap<>();
    for (Map.Entry<String, String> e : types.entrySet()) {
      if (e.getKey().startsWith(prefix) && !isCreatedCompanion(e.getKey())) {
        metrics.put(e.getKey(), e.getValue());
      }
    }
    return metrics;
  }

  private boolean isCreatedCompanion(String name) {
    if (!name.endsWith("_created")) {
      return false;
    }
    String base = name.substring(0, name.length() - "_created".length());
    return "counter".equals(types.get(base + "_total"))
        || "summary".equals(types.get(base))
        || "histogram".equals(types.get(base));
  }

  /** The label names of a metric's samples (not le or quantile), or null when it has none yet. */
  public Set<String> labels(String name, String type) {
    Set<String> names = new TreeSet<>();
    boolean any = false;
    List<String> series =
        switch (type) {
          case "histogram" -> List.of(name + "_bucket", name + "_count", name + "_sum");
          case "summary" -> List.of(name, name + "_count", name + "_sum");
          default -> List.of(name);
        };
    for (String s : series) {
      Set<String> labels = sampleLabels.get(s);
      if (labels != null) {
        any = true;
        names.addAll(labels);
      }
    }
    names.remove("le");
    names.remove("quantile");
    return any ? names : null;
  }

  /** Whether {@code name} is a metric, a series of one or a _created companion. */
  public boolean exports(String name) {
    if (types.containsKey(name) || sampleLabels.containsKey(name)) {
      return true;
    }
    for (String suffix : SUFFIXES) {
      if (name.endsWith(suffix)) {
        String base = name.substring(0, name.length() - suffix.length());
        if (types.containsKey(base) || types.containsKey(base + "_total")) {
          return true;
        }
      }
    }
    return false;
  }
}
