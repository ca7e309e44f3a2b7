package io.sluice.benchmark.transport;

import static io.sluice.benchmark.Format.count;
import static io.sluice.benchmark.Format.gbit;
import static io.sluice.benchmark.Format.percent;
import static io.sluice.benchmark.Format.rate;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The transport benchmark's results as a {@link BenchRecord}: the table and targets of the {@code
 * transport} section of docs/benchmarks/transport.md, whose text above the section says what they
 * mean.
 */
final class TransportReport {
  static final double BULK_TARGET_RATIO = 0.75;
  static final double BATCHED_TARGET_MESSAGES = 1_000_000;
  static final double UNBATCHED_TARGET_MESSAGES = 500_000;

  /**
   * How the run was set up.
   *
   * @param ioMode the Netty transport used (EPOLL or NIO)
   * @param iperfVersion iperf3's version line, or {@code null} when it was not run
   */
  record Setup(
      String ioMode,
      int serverThreads,
      int clientThreads,
      String jvmOptions,
      String iperfVersion) {}

  private final BenchmarkSettings settings;
  private final Setup setup;
  private final TransportResults results;

  TransportReport(BenchmarkSettings settings, Setup setup, TransportResults results) {
    this.settings = settings;
    this.setup = setup;
    this.results = results;
  }

  BenchRecord record() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(
        "Transport",
        setup.ioMode()
            + ", "
            + setup.serverThreads()
            + " server and "
            + setup.clientThreads()
            + " client event-loop threads");
    s.put("JVM", "`" + setup.jvmOptions() + "`");
    s.put(
        "Rounds",
        settings.rounds()
            + " of "
            + settings.seconds()
            + " s, each after "
            + settings.warmupSeconds()
            + " s of warm-up");
    s.put(
        "iperf3",
        setup.iperfVersion() == null
            ? "not run (`--no-iperf`)"
            : "`iperf3 -c 127.0.0.1 -t "
                + settings.seconds()
                + " -O "
                + settings.warmupSeconds()
                + " [-P N] -J` against `iperf3 -s -1`, "
                + setup.iperfVersion());
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("bulkBytesPerSecond", values(results.bulkBytesPerSecond));
    figures.put("bulkCpuPerGib", values(results.bulkCpuPerGib));
    figures.put("iperfBitsPerSecond", values(results.iperfBitsPerSecond));
    figures.put("iperfCpuPerGib", values(results.iperfCpuPerGib));
    figures.put("unbatchedMessagesPerSecond", results.unbatchedMessagesPerSecond.values());
    figures.put("batchedMessagesPerSecond", results.batchedMessagesPerSecond.values());
    return BenchmarkReport.record(
        "transport",
        "Transport micro-benchmark",
        settings.command(),
        s,
        List.of(table()),
        checks(),
        figures);
  }

  private Table table() {
    Table t =
        Table.of(
            "",
            "Test",
            "Connections",
            "Sluice",
            "iperf3",
            "Sluice / iperf3",
            "CPU-s/GiB, Sluice",
            "CPU-s/GiB, iperf3",
            "CPU, Sluice / iperf3");
    for (Map.Entry<Integer, Series> e : results.bulkBytesPerSecond.entrySet()) {
      int connections = e.getKey();
      Series bulk = e.getValue();
      Series iperf = results.iperfBitsPerSecond.get(connections);
      t.row(
          "Bulk push, 1 MiB bodies, "
              + Workloads.BULK_WINDOW
              + " requests (16 MiB) in flight per connection",
          connections,
          rate(bulk.median()) + " = " + gbit(bulk.median() * 8) + " (" + gbitRange(bulk, 8) + ")",
          iperf == null ? "not run" : gbit(iperf.median()) + " (" + gbitRange(iperf, 1) + ")",
          iperf == null ? "n/a" : percent(bulkRatio(connections)),
          cpu(results.bulkCpuPerGib.get(connections)),
          cpu(results.iperfCpuPerGib.get(connections)),
          cpuRatio(connections));
    }
    t.row(
        Workloads.MESSAGE_BYTES
            + "-byte messages, one per request, "
            + count(Workloads.UNBATCHED_WINDOW)
            + " requests in flight",
        1,
        messages(results.unbatchedMessagesPerSecond),
        "",
        "",
        "",
        "",
        "");
    t.row(
        Workloads.MESSAGE_BYTES
            + "-byte messages, "
            + count(Workloads.MESSAGES_PER_FRAME)
            + " packed per request (one block descriptor each), "
            + Workloads.BATCHED_WINDOW
            + " requests in flight",
        1,
        messages(results.batchedMessagesPerSecond),
        "",
        "",
        "",
        "",
        "");
    return t;
  }

  private List<Check> checks() {
    List<Check> checks = new ArrayList<>();
    if (results.bulkBytesPerSecond.containsKey(1) && results.iperfBitsPerSecond.containsKey(1)) {
      double ratio = bulkRatio(1);
      checks.add(
          new Check(
              "Bulk push on one connection at least "
                  + percent(BULK_TARGET_RATIO)
                  + " of iperf3's single stream",
              percent(ratio)
                  + " ("
                  + gbit(results.bulkBytesPerSecond.get(1).median() * 8)
                  + " against "
                  + gbit(results.iperfBitsPerSecond.get(1).median())
                  + ")",
              ratio >= BULK_TARGET_RATIO));
    }
    messagesCheck(
        checks,
        "Batched " + Workloads.MESSAGE_BYTES + "-byte messages",
        results.batchedMessagesPerSecond,
        BATCHED_TARGET_MESSAGES);
    messagesCheck(
        checks,
        Workloads.MESSAGE_BYTES + "-byte messages one per request",
        results.unbatchedMessagesPerSecond,
        UNBATCHED_TARGET_MESSAGES);
    return checks;
  }

  private static void messagesCheck(List<Check> checks, String what, Series rates, double target) {
    if (!rates.isEmpty()) {
      checks.add(
          new Check(
              what + " at least " + count(target) + " messages/s on one connection",
              count(rates.median()) + " messages/s",
              rates.median() >= target));
    }
  }

  private static Map<Integer, List<Double>> values(Map<Integer, Series> series) {
    Map<Integer, List<Double>> values = new LinkedHashMap<>();
    series.forEach((count, s) -> values.put(count, s.values()));
    return values;
  }

  private static String cpu(Series series) {
    if (series == null || series.isEmpty()) {
      return "n/a";
    }
    return String.format(
        Locale.ROOT, "%.2f (%.2f-%.2f)", series.median(), series.min(), series.max());
  }

  private String cpuRatio(int connections) {
    Series sluice = results.bulkCpuPerGib.get(connections);
    Series iperf = results.iperfCpuPerGib.get(connections);
    if (sluice == null || iperf == null || sluice.isEmpty() || iperf.isEmpty()) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%.2fx", sluice.median() / iperf.median());
  }

  private double bulkRatio(int connections) {
    return results.bulkBytesPerSecond.get(connections).median()
        * 8
        / results.iperfBitsPerSecond.get(connections).median();
  }

  private static String gbitRange(Series series, double factor) {
    return String.format(
        Locale.ROOT, "%.1f-%.1f", series.min() * factor / 1e9, series.max() * factor / 1e9);
  }

  private static String messages(Series series) {
    if (series.isEmpty()) {
      return "not run";
    }
    return count(series.median())
        + " msg/s ("
        + count(series.min())
        + "-"
        + count(series.max())
        + ")";
  }
}
