package io.sluice.benchmark.fault;

import io.sluice.benchmark.MetricsPoller;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the shuffle servers did during one run, summed over the servers that answered both before
 * and after it (a server killed in the run is left out): their CPU, the pushes they refused for
 * want of memory, and the bytes they took, forwarded to replicas and wrote to disk.
 */
public record ServerFigures(
    double cpuMs,
    double noBufferAnswers,
    double pushedBytes,
    double replicatedBytes,
    double flushedBytes,
    int servers) {
  static final String REPLICATED = "sluice_server_replicated_bytes_total";
  public static final List<String> KEYS =
      List.of(
          MetricsPoller.CPU_SECONDS,
          MetricsPoller.NO_BUFFER,
          MetricsPoller.PUSHED,
          REPLICATED,
          MetricsPoller.FLUSHED);

  /** Every server's counters now; null for a server that does not answer. */
  public static List<MetricsPoller.Sample> scrape(MetricsPoller servers)
      throws InterruptedException {
    List<MetricsPoller.Sample> all = new ArrayList<>();
    for (int i = 0; i < servers.servers(); i++) {
      try {
        all.add(servers.scrape(i));
      } catch (IOException e) {
        all.add(null);
      }
    }
    return all;
  }

  /**
   * The counters' increase from {@code before} to {@code after}. A server whose CPU counter went
   * down was started again in between (its counters began anew) and is left out too.
   */
  public static ServerFigures between(
      List<MetricsPoller.Sample> before, List<MetricsPoller.Sample> after) {
    double cpu = 0;
    double noBuffer = 0;
    double pushed = 0;
    double replicated = 0;
    double flushed = 0;
    int counted = 0;
    for (int i = 0; i < before.size(); i++) {
      MetricsPoller.Sample b = before.get(i);
      MetricsPoller.Sample a = after.get(i);
      if (a == null || b == null || a.since(b, MetricsPoller.CPU_SECONDS) < 0) {
        continue;
      }
      cpu += a.since(b, MetricsPoller.CPU_SECONDS) * 1000;
      noBuffer += a.since(b, MetricsPoller.NO_BUFFER);
      pushed += a.since(b, MetricsPoller.PUSHED);
      replicated += a.since(b, REPLICATED);
      flushed += a.since(b, MetricsPoller.FLUSHED);
      counted++;
    }
    return new ServerFigures(cpu, noBuffer, pushed, replicated, flushed, counted);
  }
}
