package io.sluice.benchmark.server;

import static io.sluice.benchmark.Format.count;
import static io.sluice.benchmark.Format.mib;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.LatencyStats;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link ScaleResults} as a {@link BenchRecord}: the tables of the {@code scale} section of
 * docs/benchmarks/scale.md, whose text above the section says what they mean.
 */
final class ScaleReport {
  private final ScaleSettings settings;
  private final ScaleResults results;
  private final List<Table> tables = new ArrayList<>();
  private final List<Check> checks = new ArrayList<>();

  ScaleReport(ScaleSettings settings, ScaleResults results) {
    this.settings = settings;
    this.results = results;
  }

  /** What did not hold: a bound passed, data lost, a server gone. Empty when all held. */
  List<String> failures() {
    List<String> failures = new ArrayList<>();
    ScaleResults.Connections c = results.connections;
    if (c != null) {
      if (!c.directHeld()) {
        failures.add("the server's direct memory passed -XX:MaxDirectMemorySize");
      }
      if (!c.pushPoolHeld()) {
        failures.add(
            String.format(
                Locale.ROOT,
                "the push pool held %,.0f bytes, more than " + "buffer.capacity (%,d bytes)",
                c.memory().peaks().pushHeld(),
                c.server().bufferCapacity()));
      }
      if (!c.readMemoryHeld()) {
        failures.add("reads from memory passed read.buffer.capacity");
      }
      if (!c.networkHeld()) {
        failures.add("the network pool passed its allowance");
      }
      if (!c.heapHeld()) {
        failures.add("the server's heap in use passed -Xmx");
      }
      if (!c.intact()) {
        failures.add("the well-behaved clients' data did not read back intact");
      }
      if (!c.serverAlive()) {
        failures.add("the server of the connections part died");
      }
    }
    if (results.commits != null && results.commits.countsProblem() != null) {
      failures.add("committed counts read back wrong: " + results.commits.countsProblem());
    }
    if (results.unregister != null && results.unregister.fetchProblems() > 0) {
      failures.add(
          "the small application's fetches found problems: "
              + results.unregister.firstFetchProblem());
    }
    return failures;
  }

  BenchRecord record() {
    if (results.connections != null) {
      connections(results.connections);
    }
    if (results.commits != null) {
      commits(results.commits);
    }
    if (results.unregister != null) {
      unregister(results.unregister);
    }
    List<String> failures = failures();
    checks.add(
        new Check(
            "Every bound checked held, every block and count read back intact",
            failures.isEmpty() ? "yes" : String.join("; ", failures),
            failures.isEmpty()));
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("connections", results.connections);
    figures.put("commits", results.commits);
    figures.put("unregister", results.unregister);
    return BenchmarkReport.record(
        "scale",
        "Server memory and latency at cluster scale",
        settings.command(),
        settings(),
        tables,
        checks,
        figures);
  }

  private Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(
        "Clients' JVM",
        "`" + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()) + "`");
    s.put("Metrics sampled every", settings.sampleMillis() + " ms");
    ScaleResults.Connections c = results.connections;
    if (c != null) {
      s.put(
          "Connections part",
          String.format(
              Locale.ROOT,
              "%d well-behaved clients push %d MiB each as %d-%d KiB blocks to %d partitions and"
                  + " commit; %d pipeliners write %d frames of %d KiB and never read; %d stallers"
                  + " send half of a %d MiB frame%s; %d readers read it all back",
              c.pushers(),
              settings.pushMib(),
              RandomPayload.MIN_BLOCK_BYTES >> 10,
              RandomPayload.MAX_BLOCK_BYTES >> 10,
              ScaleBenchmark.PARTITIONS,
              settings.pipeliners(),
              settings.pipelineFrames(),
              settings.pipelineFrameKib(),
              settings.stallers(),
              settings.stallFrameMib(),
              settings.hostileFirst() ? ", hostile clients a second first" : "",
              Math.min(settings.readers(), ScaleBenchmark.PARTITIONS)));
      s.put("Connections server configuration", "`" + String.join("`, `", c.server().conf()) + "`");
      s.put(
          "Connections server JVM",
          "`" + ServerBenchReport.jvmOptions(c.server().commandLine()) + "`");
    }
    if (results.commits != null) {
      s.put(
          "Commit server JVM",
          "`" + ServerBenchReport.jvmOptions(results.commits.server().commandLine()) + "`");
    }
    if (results.unregister != null) {
      s.put(
          "Unregister server JVM",
          "`" + ServerBenchReport.jvmOptions(results.unregister.server().commandLine()) + "`");
    }
    return s;
  }

  private void connections(ScaleResults.Connections c) {
    ServerBenchResults.ServerSetup s = c.server();
    RunResult.Peaks p = c.memory().peaks();
    long receive = SluiceConf.empty().get(TransportOptions.RECEIVE_MEMORY);
    HostileConnections.Outcome h = c.hostile();
    Table t =
        Table.of(
            count(settings.clients()) + " concurrent clients",
            "Check",
            "Peak measured",
            "Bound",
            "Held");
    t.row(
        "Connections open (`sluice_server_connections`)",
        count(c.memory().connections()),
        count(settings.maxConnections()) + " (`transport.max.connections`)",
        yes(c.memory().connections() <= settings.maxConnections()));
    t.row(
        "Server direct memory, Netty + JDK",
        mib(p.directTotal()) + " (" + mib(p.nettyDirect()) + " + " + mib(p.jdkDirect()) + ")",
        mib(s.directMemoryLimit()) + " (`-XX:MaxDirectMemorySize`)",
        yes(c.directHeld()));
    t.row(
        "Push pool (`sluice_server_push_memory_held_bytes`)",
        mib(p.pushHeld()),
        mib(s.bufferCapacity()) + " (`buffer.capacity`)",
        yes(c.pushPoolHeld()));
    t.row(
        "Network pool (`sluice_server_network_memory_bytes`)",
        mib(p.network()),
        mib(c.networkAllowance()) + " (`ServerJvmOptions.networkAllowance`)",
        yes(c.networkHeld()));
    t.row(
        "Receive reservations (`sluice_server_receive_reserved_bytes`)",
        mib(c.memory().receiveReserved()),
        mib(receive) + " (`transport.receive.memory`)",
        yes(c.memory().receiveReserved() <= receive));
    t.row(
        "Reads from memory (`sluice_server_read_memory_used_bytes`)",
        mib(p.readUsed()),
        mib(s.readCapacity()) + " (`read.buffer.capacity`)",
        yes(c.readMemoryHeld()));
    t.row(
        "Heap in use, garbage included",
        mib(p.heap()),
        mib(c.memory().heapMax()) + " (`-Xmx`)",
        yes(c.heapHeld()));
    t.row("Resident set (`process_resident_memory_bytes`)", mib(p.resident()), "", "");
    t.row(
        "Blocks acknowledged, then read back intact exactly once",
        count(c.read().blocks())
            + " of "
            + count(c.ackedBlocks())
            + " ("
            + count(c.read().problems())
            + " problems)",
        "",
        yes(c.intact()));
    t.row("Server still running", c.serverAlive() ? "yes" : "no", "", yes(c.serverAlive()));
    tables.add(t);
    LatencyStats times = c.pusherTimes();
    tables.add(
        Table.of("", "Measure", "Value")
            .row("Pushed and committed", mib(c.ackedBytes()) + " in " + seconds(c.pushSeconds()))
            .row(
                "A client's time from start to its commit's answer, p50 / p99 / max",
                seconds(times.p50Nanos() / 1e9)
                    + " / "
                    + seconds(times.p99Nanos() / 1e9)
                    + " / "
                    + seconds(times.maxNanos() / 1e9))
            .row("NO_BUFFER answers", count(c.noBuffer()))
            .row(
                "Most connections waiting for receive memory at once"
                    + " (`sluice_server_receive_waiting_connections`)",
                count(c.memory().receiveWaiting()))
            .row("Read back in", seconds(c.readSeconds()))
            .row(
                "Pipeliners that got every frame into their socket",
                h.pipelinersWroteAll() + " of " + h.pipeliners())
            .row(
                "Stallers the server closed",
                h.stallersClosed()
                    + " of "
                    + h.stallers()
                    + (h.stallersClosed() > 0
                        ? String.format(
                            Locale.ROOT,
                            ", %.1f-%.1f s after they stalled",
                            h.firstCloseMillis() / 1e3,
                            h.lastCloseMillis() / 1e3)
                        : "")
                    + " (waited for up to "
                    + ScaleBenchmark.STALL_WAIT_NANOS / 1_000_000_000L
                    + " s)")
            .row(
                "Then reserved receive memory, connections open",
                mib(c.reservedAfterStallers()) + ", " + count(c.connectionsAfterStallers()))
            .row(
                "Server CPU over the part",
                String.format(
                    Locale.ROOT,
                    "%.1f s (%.2f cores)",
                    c.serverCpuSeconds(),
                    c.serverCpuSeconds() / (c.pushSeconds() + c.readSeconds())))
            .row(
                "Machine's busy cores",
                String.format(
                    Locale.ROOT,
                    "%.2f of %d",
                    c.machineCores(),
                    Runtime.getRuntime().availableProcessors())));
  }

  private void commits(ScaleResults.Commits c) {
    ServerBenchResults.ServerSetup s = c.server();
    RunResult.Peaks p = c.memory().peaks();
    tables.add(
        Table.of(
                count(c.maps())
                    + " maps x "
                    + count(c.partitions())
                    + " partitions: commit bookkeeping, "
                    + c.commitsInFlight()
                    + " commits in flight",
                "Measure",
                "Value")
            .row("(map, partition) pairs committed", count(c.pairs()))
            .row(
                "Time to commit them",
                String.format(
                    Locale.ROOT,
                    "%.1f s (%,.0f commits/s, %,.0f pairs/s)",
                    c.seconds(),
                    c.maps() / c.seconds(),
                    c.pairs() / c.seconds()))
            .row(
                "Live heap after a full GC, before / after",
                mib(c.heapBefore()) + " / " + mib(c.heapAfter()))
            .row(
                "Live heap per (map, partition) pair",
                String.format(Locale.ROOT, "%.2f bytes", c.heapBytesPerPair()))
            .row(
                "Peak heap in use, garbage included (of `-Xmx`)",
                mib(p.heap()) + " (of " + mib(c.memory().heapMax()) + ")")
            .row(
                "Peak direct memory, Netty + JDK (of `-XX:MaxDirectMemorySize`)",
                mib(p.directTotal()) + " (of " + mib(s.directMemoryLimit()) + ")")
            .row("Peak network pool", mib(p.network()))
            .row("Peak resident set", mib(p.resident()))
            .row(
                "Server CPU while committing",
                String.format(
                    Locale.ROOT,
                    "%.1f s (%.2f cores)",
                    c.serverCpuSeconds(),
                    c.serverCpuSeconds() / c.seconds()))
            .row(
                "Counts of " + c.countsChecked() + " partitions read back",
                c.countsProblem() == null
                    ? "all equal to the committed"
                    : "**wrong**: " + c.countsProblem())
            .row(
                "Unregistering the application afterwards",
                String.format(Locale.ROOT, "%.0f ms", c.unregisterMillis())));
  }

  private void unregister(ScaleResults.Unregister u) {
    Table t =
        Table.of(
            String.format(
                Locale.ROOT,
                "Commit and fetch latency while an application of %s partitions (%s files, %s) is"
                    + " unregistered: answered in %.1f ms, files gone after %.0f ms",
                count(u.partitions()),
                count(u.files()),
                mib(u.bytesOnDisk()),
                u.answerMillis(),
                u.deletionMillis()),
            "Operation",
            "Window",
            "Count",
            "p50 (µs)",
            "p99 (µs)",
            "max (µs)",
            "Per second",
            "p99 during / before");
    latencyRows(t, "Commit", u.commitsBefore(), u.commitsDuring());
    latencyRows(t, "Fetch of a partition", u.fetchesBefore(), u.fetchesDuring());
    tables.add(t);
    tables.add(
        Table.of("", "Measure", "Value")
            .row(
                "Peak server heap",
                mib(u.memory().peaks().heap()) + " of " + mib(u.memory().heapMax()))
            .row(
                "Peak direct memory",
                mib(u.memory().peaks().directTotal())
                    + " of "
                    + mib(u.server().directMemoryLimit())));
  }

  private static void latencyRows(Table t, String what, LatencyStats before, LatencyStats during) {
    latencyRow(t, what, "before", before, "");
    latencyRow(
        t,
        what,
        "during",
        during,
        before == null || during == null
            ? "n/a"
            : String.format(Locale.ROOT, "%.2fx", during.p99Nanos() / (double) before.p99Nanos()));
  }

  private static void latencyRow(
      Table t, String what, String window, LatencyStats s, String ratio) {
    if (s == null) {
      t.row(what, window, 0, "", "", "", "", ratio);
    } else {
      t.row(
          what,
          window,
          s.count(),
          LatencyStats.micros(s.p50Nanos()),
          LatencyStats.micros(s.p99Nanos()),
          LatencyStats.micros(s.maxNanos()),
          count(s.perSecond()),
          ratio);
    }
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.1f s", s);
  }

  private static String yes(boolean held) {
    return held ? "**yes**" : "**no**";
  }
}
