package io.sluice.benchmark.tpc;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scrapes each shuffle server's {@code /metrics} every {@code interval} on a daemon thread and
 * keeps the samples, so that peaks (direct memory, heap) and increases (GC time, bytes flushed,
 * CPU) can be read for any window of wall-clock time afterwards.
 */
final class ServerMetricsPoller implements AutoCloseable {
  static final String DIRECT_MEMORY = "sluice_server_netty_direct_memory_bytes";
  static final String PUSH_MEMORY = "sluice_server_push_memory_held_bytes";
  static final String HEAP = "jvm_memory_bytes_used{area=\"heap\"}";
  static final String GC_SECONDS = "jvm_gc_collection_seconds_sum";
  static final String FLUSHED = "sluice_server_flushed_bytes_total";
  static final String PUSHED = "sluice_server_pushed_bytes_total";
  static final String READ = "sluice_server_read_bytes_total";
  static final String REJECTIONS = "sluice_server_push_rejections_total";
  static final String CPU_SECONDS = "process_cpu_seconds_total";
  static final List<String> GAUGES = List.of(DIRECT_MEMORY, PUSH_MEMORY, HEAP);
  static final List<String> COUNTERS = List.of(GC_SECONDS, FLUSHED, PUSHED, READ, REJECTIONS,
      CPU_SECONDS);

  /** One scrape of one server. */
  record Sample(long epochMs, Map<String, Double> values) {}

  private final List<Integer> ports;
  private final List<List<Sample>> samples = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2)).build();
  private final Thread thread;
  private volatile boolean running = true;

  ServerMetricsPoller(List<Integer> metricsPorts, Duration interval) {
    this.ports = List.copyOf(metricsPorts);
    for (int i = 0; i < ports.size(); i++) {
      samples.add(new ArrayList<>());
    }
    List<String> wanted = new ArrayList<>(GAUGES);
    wanted.addAll(COUNTERS);
    thread = new Thread(() -> {
      while (running) {
        for (int i = 0; i < ports.size(); i++) {
          Map<String, Double> values = scrape(ports.get(i), wanted);
          if (values != null) {
            synchronized (this) {
              samples.get(i).add(new Sample(System.currentTimeMillis(), values));
            }
          }
        }
        try {
          Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "server-metrics-poller");
    thread.setDaemon(true);
    thread.start();
  }

  private Map<String, Double> scrape(int port, List<String> wanted) {
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
      return resp.statusCode() == 200 ? PrometheusText.read(resp.body(), wanted) : null;
    } catch (java.io.IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * What the servers did between two instants: per server, the peak of each gauge and the increase
   * of each counter (from the last sample at or before {@code fromMs} to the first at or after
   * {@code toMs}), plus the server's sample count. Counters are in their exposition units (seconds,
   * bytes).
   */
  synchronized List<Map<String, Object>> window(long fromMs, long toMs) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int i = 0; i < ports.size(); i++) {
      List<Sample> list = samples.get(i);
      Sample before = null;
      Sample after = null;
      Map<String, Double> peaks = new LinkedHashMap<>();
      int inside = 0;
      for (Sample s : list) {
        if (s.epochMs() <= fromMs) {
          before = s;
        }
        if (after == null && s.epochMs() >= toMs) {
          after = s;
        }
        if (s.epochMs() >= fromMs && s.epochMs() <= toMs) {
          inside++;
          for (String g : GAUGES) {
            Double v = s.values().get(g);
            if (v != null) {
              peaks.merge(g, v, Math::max);
            }
          }
        }
      }
      if (after == null && !list.isEmpty()) {
        after = list.get(list.size() - 1);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("server", i + 1);
      m.put("samples", inside);
      m.put("peakDirectMemoryBytes", peaks.getOrDefault(DIRECT_MEMORY, 0.0).longValue());
      m.put("peakPushMemoryBytes", peaks.getOrDefault(PUSH_MEMORY, 0.0).longValue());
      m.put("peakHeapBytes", peaks.getOrDefault(HEAP, 0.0).longValue());
      m.put("gcMs", Math.round(increase(before, after, GC_SECONDS) * 1000));
      m.put("cpuMs", Math.round(increase(before, after, CPU_SECONDS) * 1000));
      m.put("flushedBytes", (long) increase(before, after, FLUSHED));
      m.put("pushedBytes", (long) increase(before, after, PUSHED));
      m.put("readBytes", (long) increase(before, after, READ));
      m.put("pushRejections", (long) increase(before, after, REJECTIONS));
      out.add(m);
    }
    return out;
  }

  private static double increase(Sample before, Sample after, String counter) {
    if (after == null) {
      return 0;
    }
    double end = after.values().getOrDefault(counter, 0.0);
    double start = before == null ? 0 : before.values().getOrDefault(counter, 0.0);
    return Math.max(0, end - start);
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
