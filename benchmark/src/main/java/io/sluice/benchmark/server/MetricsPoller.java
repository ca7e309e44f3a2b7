package io.sluice.benchmark.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Reads the server's {@code /metrics} over HTTP, once on demand or every {@code intervalMillis} in the
 * background, keeping the peaks of its memory gauges. A peak between two samples is not seen: the
 * figures are lower bounds of the true peaks, at the sampling interval's resolution.
 */
final class MetricsPoller implements AutoCloseable {
  private static final int SETTLED_SAMPLES = 3;

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private final URI uri;
  private final int intervalMillis;
  private final Thread sampler;
  private volatile boolean running;
  private volatile IOException samplingFailure;
  private Peaks peaks = Peaks.NONE;
  private MetricsScrape previous;
  private long sampled;
  private final List<Double> fillWhileRefusing = new ArrayList<>();

  MetricsPoller(int httpPort, int intervalMillis) {
    this.uri = URI.create("http://127.0.0.1:" + httpPort + "/metrics?"
        + ServerMetricNames.ALL.stream().map(n -> "name%5B%5D=" + n)
            .collect(Collectors.joining("&")));
    this.intervalMillis = intervalMillis;
    this.sampler = new Thread(this::sampleUntilClosed, "server-metrics-sampler");
    this.sampler.setDaemon(true);
  }

  int intervalMillis() {
    return intervalMillis;
  }

  MetricsScrape scrape() throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + uri + " answered " + response.statusCode());
    }
    return MetricsScrape.parse(response.body(), System.nanoTime());
  }

  /** Starts sampling in the background; {@link #peaks()} covers the samples from now on. */
  void start() {
    running = true;
    sampler.start();
  }

  synchronized Peaks peaks() {
    return peaks;
  }

  /**
   * How full the push pool's chunks were with blocks while it refused pushes: for each sample after
   * which the server had answered more NO_BUFFER, the blocks' bytes over the chunks' bytes.
   */
  synchronized Refusals refusals() {
    List<Double> sorted = new ArrayList<>(fillWhileRefusing);
    Collections.sort(sorted);
    return new Refusals(sampled, sorted.size(),
        sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2));
  }

  private void recordRefusals(MetricsScrape s) {
    sampled++;
    if (previous != null
        && s.sum(ServerMetricNames.REJECTIONS) > previous.sum(ServerMetricNames.REJECTIONS)) {
      double held = s.sum(ServerMetricNames.PUSH_HELD);
      if (held > 0) {
        fillWhileRefusing.add(s.sum(ServerMetricNames.PUSH_ALLOCATED) / held);
      }
    }
    previous = s;
  }

  /**
   * @param samples samples taken
   * @param refusing samples after which more pushes had been refused
   * @param medianFill the median share of the pool's held memory that blocks filled at those
   */
  record Refusals(long samples, long refusing, double medianFill) {}

  /**
   * Waits until flushing is over: the flush queue is empty and the flushed byte count has not moved
   * for a few samples. Returns the first sample that saw the final count, whose time is when the last
   * flush ended (to within one interval).
   */
  MetricsScrape awaitFlushSettled(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    MetricsScrape firstAtFinal = null;
    double last = -1;
    int stable = 0;
    while (System.nanoTime() < deadline) {
      MetricsScrape s = scrape();
      double flushed = s.sum(ServerMetricNames.FLUSHED);
      if (flushed != last) {
        firstAtFinal = s;
        last = flushed;
        stable = 0;
      } else if (s.sum(ServerMetricNames.FLUSH_QUEUE) == 0) {
        stable++;
        if (stable >= SETTLED_SAMPLES) {
          return firstAtFinal;
        }
      }
      Thread.sleep(intervalMillis);
    }
    throw new IOException("the server was still flushing after " + timeout.toSeconds() + " s");
  }

  private void sampleUntilClosed() {
    while (running) {
      try {
        MetricsScrape s = scrape();
        synchronized (this) {
          peaks = peaks.with(s);
          recordRefusals(s);
        }
        Thread.sleep(intervalMillis);
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        samplingFailure = e;
        return;
      }
    }
  }

  /** Stops sampling; throws if sampling failed (the server stopped answering). */
  @Override
  public void close() throws IOException, InterruptedException {
    running = false;
    if (sampler.isAlive()) {
      sampler.interrupt();
      sampler.join(TimeUnit.SECONDS.toMillis(10));
    }
    if (samplingFailure != null) {
      throw new IOException("sampling the server's metrics failed", samplingFailure);
    }
  }

  /**
   * The highest values sampled. {@code directTotal} is Netty's direct memory (push pool, network pool,
   * read slices) plus the JDK's own direct buffers, as one sample saw them together.
   */
  record Peaks(long samples, double pushHeld, double pushAllocated, double network,
      double nettyDirect, double jdkDirect, double directTotal, double readUsed, double resident,
      double flushQueue) {
    static final Peaks NONE = new Peaks(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    Peaks with(MetricsScrape s) {
      double netty = s.sum(ServerMetricNames.NETTY_DIRECT);
      double jdk = s.labelled(ServerMetricNames.JVM_BUFFER_POOL,
          ServerMetricNames.DIRECT_POOL_LABEL);
      return new Peaks(samples + 1,
          Math.max(pushHeld, s.sum(ServerMetricNames.PUSH_HELD)),
          Math.max(pushAllocated, s.sum(ServerMetricNames.PUSH_ALLOCATED)),
          Math.max(network, s.sum(ServerMetricNames.NETWORK)),
          Math.max(nettyDirect, netty),
          Math.max(jdkDirect, jdk),
          Math.max(directTotal, netty + jdk),
          Math.max(readUsed, s.sum(ServerMetricNames.READ_USED)),
          Math.max(resident, s.sum(ServerMetricNames.RESIDENT)),
          Math.max(flushQueue, s.sum(ServerMetricNames.FLUSH_QUEUE)));
    }
  }
}
