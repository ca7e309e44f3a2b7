package io.sluice.benchmark;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads shuffle servers' {@code /metrics} (Prometheus text format): once on demand, or every {@code
 * interval} on a daemon thread that keeps every sample, so that peaks and increases can be read for
 * any span afterwards. A peak between two samples is not seen: peaks are lower bounds, at the
 * sampling interval's resolution. The scrapes ask only for the series the caller names.
 */
public final class MetricsPoller implements AutoCloseable {
  public static final String PUSH_HELD = "sluice_server_push_memory_held_bytes";
  public static final String PUSH_ALLOCATED = "sluice_server_push_memory_allocated_bytes";
  public static final String NETWORK = "sluice_server_network_memory_bytes";
  public static final String NETTY_DIRECT = "sluice_server_netty_direct_memory_bytes";
  public static final String READ_USED = "sluice_server_read_memory_used_bytes";

  /** The JDK's own direct buffers (NIO temporary buffers and the like). */
  public static final String JDK_DIRECT = "jvm_buffer_pool_used_bytes{pool=\"direct\"}";

  public static final String HEAP = "jvm_memory_bytes_used{area=\"heap\"}";
  public static final String HEAP_MAX = "jvm_memory_bytes_max{area=\"heap\"}";
  public static final String CONNECTIONS = "sluice_server_connections";
  public static final String RECEIVE_RESERVED = "sluice_server_receive_reserved_bytes";
  public static final String RECEIVE_WAITING = "sluice_server_receive_waiting_connections";
  public static final String PUSHED = "sluice_server_pushed_bytes_total";
  public static final String FLUSHED = "sluice_server_flushed_bytes_total";
  public static final String FLUSH_QUEUE = "sluice_server_flush_queue";
  public static final String REJECTIONS = "sluice_server_push_rejections_total";
  public static final String NO_BUFFER = REJECTIONS + "{reason=\"NO_BUFFER\"}";
  public static final String PUSH_WAITS = "sluice_server_push_waits_total";
  public static final String READ = "sluice_server_read_bytes_total";
  public static final String READ_MEMORY = READ + "{source=\"memory\"}";
  public static final String READ_DISK = READ + "{source=\"disk\"}";
  public static final String GC_SECONDS = "jvm_gc_collection_seconds_sum";
  public static final String GC_COUNT = "jvm_gc_collection_seconds_count";
  public static final String CPU_SECONDS = "process_cpu_seconds_total";
  public static final String THREAD_CPU = "sluice_server_cpu_seconds_total";

  /** The groups of the server's threads in {@link #threadCpu}, as docs/metrics.md names them. */
  public static final List<String> THREAD_GROUPS =
      List.of("network", "flush", "read", "compiler", "gc", "replication", "http", "other");

  public static final String RESIDENT = "process_resident_memory_bytes";

  /** The CPU seconds a group of the server's threads spent ({@link #THREAD_GROUPS}). */
  public static String threadCpu(String group) {
    return THREAD_CPU + "{threads=\"" + group + "\"}";
  }

  /**
   * One reading of one server, at {@code nanoTime} on this JVM's clock and {@code epochMs} on the
   * wall clock: each series ({@code name{labels}}) and its value.
   */
  public record Sample(long nanoTime, long epochMs, Map<String, Double> series) {

    /** Parses lines of {@code name{labels} value}; comments and other lines are skipped. */
    public static Sample parse(String text, long nanoTime, long epochMs) {
      Map<String, Double> series = new HashMap<>();
      for (String line : text.split("\n")) {
        String trimmed = line.strip();
        int space = trimmed.lastIndexOf(' ');
        if (trimmed.startsWith("#") || space <= 0) {
          continue;
        }
        try {
          // simpleclient writes a comma after the last label: name{a="b",}
          series.merge(
              trimmed.substring(0, space).strip().replace(",}", "}"),
              Double.parseDouble(trimmed.substring(space + 1)),
              Double::sum);
        } catch (NumberFormatException e) {
          // not a sample line
        }
      }
      return new Sample(nanoTime, epochMs, Map.copyOf(series));
    }

    /**
     * The sum of the series of a metric: every series of {@code name}, or with {@code name{a="b"}}
     * those whose labels include {@code a="b"}; 0 when there is none.
     */
    public double get(String key) {
      int brace = key.indexOf('{');
      String name = brace < 0 ? key : key.substring(0, brace);
      String[] labels =
          brace < 0 ? new String[0] : key.substring(brace + 1, key.length() - 1).split(",");
      double total = 0;
      for (Map.Entry<String, Double> e : series.entrySet()) {
        String s = e.getKey();
        if (!(s.equals(name) || s.startsWith(name + "{"))) {
          continue;
        }
        boolean matches = true;
        for (String label : labels) {
          matches &= s.contains(label);
        }
        if (matches) {
          total += e.getValue();
        }
      }
      return total;
    }

    /** {@code get(key)} here minus in {@code earlier}. */
    public double since(Sample earlier, String key) {
      return get(key) - earlier.get(key);
    }
  }

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final List<URI> uris = new ArrayList<>();
  private final Duration interval;
  private final List<List<Sample>> samples = new ArrayList<>();
  private final Thread sampler;
  private volatile boolean running;
  private volatile IOException failure;

  /**
   * @param httpPorts the servers' HTTP ports on 127.0.0.1
   * @param keys the series to read (as for {@link Sample#get}); empty for all
   */
  public MetricsPoller(List<Integer> httpPorts, List<String> keys, Duration interval) {
    this(endpoints(httpPorts.stream().map(port -> "127.0.0.1:" + port).toList(), keys), interval);
  }

  /** As above, for servers at {@code host:port} HTTP addresses. */
  public static MetricsPoller at(List<String> httpAddresses, List<String> keys, Duration interval) {
    return new MetricsPoller(endpoints(httpAddresses, keys), interval);
  }

  private MetricsPoller(List<URI> endpoints, Duration interval) {
    for (URI endpoint : endpoints) {
      uris.add(endpoint);
      samples.add(new ArrayList<>());
    }
    this.interval = interval;
    this.sampler = new Thread(this::sampleUntilClosed, "server-metrics-poller");
    this.sampler.setDaemon(true);
  }

  /** Each server's {@code /metrics} asking only for {@code keys}' series (all when empty). */
  private static List<URI> endpoints(List<String> httpAddresses, List<String> keys) {
    Set<String> names = new LinkedHashSet<>();
    keys.forEach(k -> names.add(k.replaceFirst("\\{.*", "")));
    String query = names.stream().map(n -> "name%5B%5D=" + n).collect(Collectors.joining("&"));
    return httpAddresses.stream()
        .map(
            address ->
                URI.create("http://" + address + "/metrics" + (query.isEmpty() ? "" : "?" + query)))
        .toList();
  }

  /** How many servers this polls. */
  public int servers() {
    return uris.size();
  }

  /** Reads server {@code server} (by its index in the port list) now; not kept as a sample. */
  public Sample scrape(int server) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uris.get(server)).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + uris.get(server) + " answered " + response.statusCode());
    }
    return Sample.parse(response.body(), System.nanoTime(), System.currentTimeMillis());
  }

  /** Starts sampling every server in the background. */
  public MetricsPoller start() {
    running = true;
    sampler.start();
    return this;
  }

  /** The samples of server {@code server} so far, oldest first. */
  public synchronized List<Sample> samples(int server) {
    return List.copyOf(samples.get(server));
  }

  /** The last scrape that failed, or null: a server stopped answering. */
  public IOException failure() {
    return failure;
  }

  private void sampleUntilClosed() {
    while (running) {
      for (int i = 0; i < uris.size(); i++) {
        try {
          Sample s = scrape(i);
          synchronized (this) {
            samples.get(i).add(s);
          }
        } catch (IOException e) {
          failure = e;
        } catch (InterruptedException e) {
          return;
        }
      }
      try {
        Thread.sleep(interval.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    running = false;
    sampler.interrupt();
    try {
      sampler.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
