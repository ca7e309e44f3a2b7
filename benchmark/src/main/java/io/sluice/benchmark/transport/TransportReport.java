package io.sluice.benchmark.transport;

import static io.sluice.benchmark.Format.count;
import static io.sluice.benchmark.Format.gbit;
import static io.sluice.benchmark.Format.percent;
import static io.sluice.benchmark.Format.rate;

import io.sluice.benchmark.Series;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders the results as the Markdown section of {@code docs/benchmarks/transport.md}, targets
 * included.
 */
final class TransportReport {
  static final double BULK_TARGET_RATIO = 0.75;
  static final double BATCHED_TARGET_MESSAGES = 1_000_000;
  static final double UNBATCHED_TARGET_MESSAGES = 500_000;
  private static final Pattern IPERF_VERSION = Pattern.compile("iperf (\\d+)\\.(\\d+)");

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

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("Client and server in one JVM over loopback (127.0.0.1): a real `TransportServer` ")
        .append("whose handler releases each pushed body and answers OK, and ")
        .append("`TransportClient`s pushing `PushDataRequest`s pipelined from one thread per ")
        .append("connection. ")
        .append(setup.ioMode())
        .append(" transport, ")
        .append(setup.serverThreads())
        .append(" server and ")
        .append(setup.clientThreads())
        .append(" client event-loop threads, JVM options `")
        .append(setup.jvmOptions())
        .append("`. ")
        .append(
            setup.iperfVersion() == null
                ? "iperf3 was not run (`--no-iperf`). "
                : setup.iperfVersion() + " measured on the same machine in the same run. ")
        .append("Each figure is the median of ")
        .append(settings.rounds())
        .append(settings.rounds() == 1 ? " round of " : " rounds of ")
        .append(settings.seconds())
        .append(" s, each measured after ")
        .append(settings.warmupSeconds())
        .append(" s of warm-up (iperf3 `-O`); the rounds ")
        .append("interleave iperf3 and Sluice, connection count by connection count, then the ")
        .append("small-message runs. Ranges over the rounds are in brackets. Throughput counts ")
        .append("body bytes received by the server (iperf3: payload received).\n\n");

    md.append("| Test | Connections | Sluice | iperf3 | Sluice / iperf3 | CPU-s/GiB, Sluice | ")
        .append("CPU-s/GiB, iperf3 | CPU, Sluice / iperf3 |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Integer, Series> e : results.bulkBytesPerSecond.entrySet()) {
      int connections = e.getKey();
      Series bulk = e.getValue();
      Series iperf = results.iperfBitsPerSecond.get(connections);
      md.append("| Bulk push, 1 MiB bodies, ")
          .append(Workloads.BULK_WINDOW)
          .append(" requests (16 MiB) in flight per connection | ")
          .append(connections)
          .append(" | ")
          .append(rate(bulk.median()))
          .append(" = ")
          .append(gbit(bulk.median() * 8))
          .append(" (")
          .append(gbitRange(bulk, 8))
          .append(")")
          .append(" | ")
          .append(
              iperf == null ? "not run" : gbit(iperf.median()) + " (" + gbitRange(iperf, 1) + ")")
          .append(" | ")
          .append(iperf == null ? "n/a" : percent(bulkRatio(connections)))
          .append(" | ")
          .append(cpu(results.bulkCpuPerGib.get(connections)))
          .append(" | ")
          .append(cpu(results.iperfCpuPerGib.get(connections)))
          .append(" | ")
          .append(cpuRatio(connections))
          .append(" |\n");
    }
    md.append("| ")
        .append(Workloads.MESSAGE_BYTES)
        .append("-byte messages, one per request, ")
        .append(count(Workloads.UNBATCHED_WINDOW))
        .append(" requests in flight | 1 | ")
        .append(messages(results.unbatchedMessagesPerSecond))
        .append(" | | | | | |\n");
    md.append("| ")
        .append(Workloads.MESSAGE_BYTES)
        .append("-byte messages, ")
        .append(count(Workloads.MESSAGES_PER_FRAME))
        .append(" packed per request (one block descriptor each), ")
        .append(Workloads.BATCHED_WINDOW)
        .append(" requests in flight | 1 | ")
        .append(messages(results.batchedMessagesPerSecond))
        .append(" | | | | | |\n\n");
    md.append("CPU is what client and server together spent per GiB received: for Sluice the ")
        .append("JVM's CPU time over the measured seconds (both ends run in it), for iperf3 its ")
        .append("client's and server's own CPU figures (`cpu_utilization_percent`). Medians, ")
        .append("ranges in brackets.\n\n");
    if (setup.iperfVersion() != null) {
      md.append(iperfNote()).append("\n\n");
    }

    md.append("Targets:\n\n");
    md.append("- Bulk push on one connection at least ")
        .append(percent(BULK_TARGET_RATIO))
        .append(" of iperf3's single stream: ")
        .append(bulkVerdict())
        .append('\n');
    md.append("- Batched ")
        .append(Workloads.MESSAGE_BYTES)
        .append("-byte messages at least ")
        .append(count(BATCHED_TARGET_MESSAGES))
        .append(" messages/s on one connection: ")
        .append(messagesVerdict(results.batchedMessagesPerSecond, BATCHED_TARGET_MESSAGES))
        .append('\n');
    md.append("- ")
        .append(Workloads.MESSAGE_BYTES)
        .append("-byte messages one per request at ")
        .append("least ")
        .append(count(UNBATCHED_TARGET_MESSAGES))
        .append(" messages/s on one connection: ")
        .append(messagesVerdict(results.unbatchedMessagesPerSecond, UNBATCHED_TARGET_MESSAGES))
        .append(
            " Requests and answers are written on the connection's event loop and flushed "
                + "once per burst (`BatchingWriter`: a flush queued behind the first write, from the "
                + "event loop only, so no write misses it), and overdue requests are found by one "
                + "sweep per connection instead of a timer per request; before both, each request and "
                + "each answer cost a system call and a timer, and this ran at 122,616 messages/s. "
                + "Idle connections are found by a flag per message and a check every quarter of "
                + "`transport.idle.timeout` (`IdleDetector`), not a listener on every write, and a "
                + "body of at most 1 KiB travels in its header's buffer; before these two and a "
                + "cheaper string check, alternating runs gave 479-577 k messages/s against "
                + "669-741 k.\n");
    if (!results.unbatchedMessagesPerSecond.isEmpty()
        && !results.batchedMessagesPerSecond.isEmpty()) {
      md.append("\nBatching carries ")
          .append(
              String.format(
                  Locale.ROOT,
                  "%.0fx",
                  results.batchedMessagesPerSecond.median()
                      / results.unbatchedMessagesPerSecond.median()))
          .append(" as many 100-byte messages per second as one request per message.\n");
    }
    return md.toString();
  }

  /** What iperf3 does differently, so that a ratio above 100% can be read. */
  private String iperfNote() {
    String note =
        "iperf3 runs as `iperf3 -c 127.0.0.1 -t "
            + settings.seconds()
            + " -O "
            + settings.warmupSeconds()
            + " [-P N] -J` against a one-shot `iperf3 -s -1` and writes "
            + "128 KiB per send call (its default); Sluice's epoll channel writes frame headers and "
            + "1 MiB bodies with gathering writes of as much as the socket takes.";
    Matcher version = IPERF_VERSION.matcher(setup.iperfVersion());
    if (version.find()
        && Integer.parseInt(version.group(1)) == 3
        && Integer.parseInt(version.group(2)) < 16) {
      note +=
          " iperf3 releases before 3.16 drive every stream of a test from one thread, so "
              + "its multi-stream figures are those of one sending core and one receiving core.";
    }
    return note;
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

  private String bulkVerdict() {
    if (!results.bulkBytesPerSecond.containsKey(1)) {
      return "not evaluated (no one-connection run in `--connections`).";
    }
    if (!results.iperfBitsPerSecond.containsKey(1)) {
      return "not evaluated (iperf3 not run).";
    }
    double ratio = bulkRatio(1);
    double sluiceBits = results.bulkBytesPerSecond.get(1).median() * 8;
    double iperfBits = results.iperfBitsPerSecond.get(1).median();
    if (ratio >= BULK_TARGET_RATIO) {
      return "**met**, "
          + percent(ratio)
          + " ("
          + gbit(sluiceBits)
          + " against "
          + gbit(iperfBits)
          + ").";
    }
    return "**missed**, "
        + percent(ratio)
        + " ("
        + gbit(sluiceBits)
        + " against "
        + gbit(iperfBits)
        + "): "
        + String.format(Locale.ROOT, "%.0f", (BULK_TARGET_RATIO - ratio) * 100)
        + " points short, "
        + gbit(BULK_TARGET_RATIO * iperfBits - sluiceBits)
        + " more needed.";
  }

  private static String messagesVerdict(Series rates, double target) {
    if (rates.isEmpty()) {
      return "not evaluated.";
    }
    double rate = rates.median();
    if (rate >= target) {
      return "**met**, " + count(rate) + " messages/s.";
    }
    return "**missed**, "
        + count(rate)
        + " messages/s: "
        + count(target - rate)
        + " messages/s ("
        + percent(1 - rate / target)
        + ") short.";
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
