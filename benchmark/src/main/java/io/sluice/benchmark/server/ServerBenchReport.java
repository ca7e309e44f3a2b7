package io.sluice.benchmark.server;

import static io.sluice.benchmark.Format.count;
import static io.sluice.benchmark.Format.mib;
import static io.sluice.benchmark.Format.percent;
import static io.sluice.benchmark.Format.percent2;
import static io.sluice.benchmark.Format.rate;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.server.ServerOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The server benchmark's results as a {@link BenchRecord}: the tables and targets of the {@code
 * server} section of docs/benchmarks/server.md, whose text above the section says what they mean.
 */
final class ServerBenchReport {
  static final double INGEST_TARGET_RATIO = 0.70;
  static final double GC_TARGET_SHARE = 0.01;

  private final ServerBenchSettings settings;
  private final ServerBenchResults results;
  private final List<Table> tables = new ArrayList<>();
  private final List<Check> checks = new ArrayList<>();

  ServerBenchReport(ServerBenchSettings settings, ServerBenchResults results) {
    this.settings = settings;
    this.results = results;
  }

  /** The contract's checks all held: peaks within budget, nothing lost, the server alive. */
  static boolean contractHeld(ServerBenchResults results) {
    RunResult c = results.contract;
    ServerBenchResults.ServerSetup s = results.contractServer;
    return c.peaks().pushHeld() <= s.bufferCapacity()
        && c.peaks().directTotal() <= s.directMemoryLimit()
        && c.intact()
        && results.contractServerAlive;
  }

  BenchRecord record() {
    if (!results.runs.isEmpty()) {
      limits();
      rates();
      resources();
      throughputTargets();
      cpuBudget();
      threadCpu();
      readCpu();
      if (results.ingestProfile != null) {
        profile("Ingest", results.ingestProfile);
        profile("Read", results.readProfile);
      }
    }
    if (results.contract != null) {
      contract();
    }
    return BenchmarkReport.record(
        "server",
        "Shuffle server benchmark",
        settings.command(),
        settings(),
        tables,
        checks,
        figures());
  }

  private Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put(
        "Clients' JVM",
        "`" + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()) + "`");
    s.put(
        "Pushes",
        String.format(
            Locale.ROOT,
            "%d-%d KiB random blocks to %d partitions through `MapOutputPusher`, pushes of %s, at"
                + " most %s held, NO_BUFFER back-off %d-%d ms",
            RandomPayload.MIN_BLOCK_BYTES >> 10,
            RandomPayload.MAX_BLOCK_BYTES >> 10,
            ShuffleRun.PARTITIONS,
            mib(ShuffleRun.PUSH.batchSize()),
            mib(ShuffleRun.PUSH.maxBytesBuffered()),
            ShuffleRun.PUSH.backoff().firstWait().toMillis(),
            ShuffleRun.PUSH.backoff().maxWait().toMillis()));
    s.put(
        "Reads",
        "`PartitionReader`, requests up to "
            + mib(ShuffleRun.FETCH_REQUEST)
            + ", "
            + mib(ShuffleRun.FETCH_IN_FLIGHT)
            + " in flight");
    s.put("Metrics sampled every", settings.sampleMillis() + " ms");
    ServerBenchResults.ServerSetup t = results.throughputServer;
    if (t != null) {
      s.put(
          "Throughput runs",
          String.format(
              Locale.ROOT,
              "%d MiB per run, %d round(s) of %s clients, after a warm-up of %d MiB at each",
              settings.runMib(),
              settings.rounds(),
              join(settings.clients()),
              settings.warmupMib()));
      s.put("Throughput server configuration", "`" + String.join("`, `", t.conf()) + "`");
      s.put("Throughput server JVM", "`" + jvmOptions(t.commandLine()) + "`");
      if (t.recording() != null) {
        s.put("Throughput server flight recording", "`" + relative(t.recording()) + "`");
      }
    }
    if (results.contract != null) {
      ServerBenchResults.ServerSetup c = results.contractServer;
      s.put(
          "Contract run",
          String.format(
              Locale.ROOT,
              "%d clients push %s into buffer.capacity %s (%.0fx), read.buffer.capacity %s,"
                  + " -XX:MaxDirectMemorySize %s; %d samples every %d ms",
              results.contract.clients(),
              mib(results.contract.ackedBytes()),
              mib(c.bufferCapacity()),
              results.contract.ackedBytes() / (double) c.bufferCapacity(),
              mib(c.readCapacity()),
              mib(c.directMemoryLimit()),
              results.contract.peaks().samples(),
              results.contract.sampleMillis()));
    }
    s.put("Machine probes", settings.probes() ? "measured (`--probes`)" : "not measured");
    return s;
  }

  private Map<String, Object> figures() {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("loopbackBytesPerSecond", results.loopbackBytesPerSecond.values());
    f.put("loopbackReceiveCpuPerGib", results.loopbackReceiveCpuPerGib.values());
    f.put("diskBytesPerSecond", results.diskBytesPerSecond.values());
    f.put("diskCpuPerGib", results.diskCpuPerGib.values());
    f.put("pageCacheBytesPerSecond", results.pageCacheBytesPerSecond.values());
    f.put("pageCacheCpuPerGib", results.pageCacheCpuPerGib.values());
    f.put("pooledReceiveBytesPerSecond", valuesByCount(results.pooledReceiveBytesPerSecond));
    f.put("pooledReceiveCpuPerGib", valuesByCount(results.pooledReceiveCpuPerGib));
    f.put("sendfileBytesPerSecond", valuesByCount(results.sendfileBytesPerSecond));
    f.put("sendfileCpuPerGib", valuesByCount(results.sendfileCpuPerGib));
    f.put("runs", results.runs);
    f.put("contract", results.contract);
    return f;
  }

  private static Map<Integer, List<Double>> valuesByCount(Map<Integer, Series> series) {
    Map<Integer, List<Double>> values = new LinkedHashMap<>();
    series.forEach((count, s) -> values.put(count, s.values()));
    return values;
  }

  private void limits() {
    Table t = Table.of("Machine limits, same rounds", "Limit", "Median", "Range", "CPU-s per GiB");
    if (!results.loopbackBytesPerSecond.isEmpty()) {
      t.row(
          "Loopback TCP, `iperf3 -c 127.0.0.1 -t "
              + settings.iperfSeconds()
              + " -O 1`, one stream ("
              + results.iperfVersion
              + "), receiving end",
          rate(results.loopbackBytesPerSecond.median()),
          range(results.loopbackBytesPerSecond),
          cores(results.loopbackReceiveCpuPerGib.median()));
    }
    for (Map.Entry<Integer, Series> e : results.pooledReceiveCpuPerGib.entrySet()) {
      Series rates = results.pooledReceiveBytesPerSecond.get(e.getKey());
      t.row(
          "Receive as a server receives, "
              + connections(e.getKey())
              + " into a "
              + (ReceiveCopyProbe.REGION_BYTES >> 20)
              + " MiB region (`ReceiveCopyProbe`)",
          rate(rates.median()),
          range(rates),
          cores(e.getValue().median()));
    }
    t.row(
        "Disk sequential write, `" + results.ddCommand + "`",
        rate(results.diskBytesPerSecond.median()),
        range(results.diskBytesPerSecond),
        cores(results.diskCpuPerGib.median()));
    if (!results.pageCacheBytesPerSecond.isEmpty()) {
      t.row(
          "Page cache write (not a target), `" + results.ddPageCacheCommand + "`",
          rate(results.pageCacheBytesPerSecond.median()),
          range(results.pageCacheBytesPerSecond),
          cores(results.pageCacheCpuPerGib.median()));
    }
    for (Map.Entry<Integer, Series> e : results.sendfileCpuPerGib.entrySet()) {
      Series rates = results.sendfileBytesPerSecond.get(e.getKey());
      t.row(
          "Send a flushed file with sendfile in "
              + (SendfileProbe.SEND_BYTES >> 20)
              + " MiB pieces, "
              + connections(e.getKey())
              + " (`SendfileProbe`)",
          rate(rates.median()),
          range(rates),
          cores(e.getValue().median()));
    }
    tables.add(t);
  }

  private void rates() {
    Table t =
        Table.of(
            "Throughput",
            "Clients",
            "Acknowledged",
            "Ingest with flush",
            "/ min(loopback, disk)",
            "Flushed / pushed",
            "Read back",
            "Read from memory",
            "Pushes held back unread",
            "NO_BUFFER answers",
            "Pool filled with blocks while refusing");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      Series flushed = series(runs, RunResult::flushedBytesPerSecond);
      t.row(
          e.getKey(),
          rateWithRange(series(runs, RunResult::ackBytesPerSecond)),
          rateWithRange(flushed),
          percent(flushed.median() / limit()),
          percent(median(runs, r -> r.flushedBytes() / (double) r.ackedBytes())),
          rateWithRange(series(runs, RunResult::readBytesPerSecond)),
          percent(
              median(
                  runs,
                  r -> r.readMemoryBytes() / (double) (r.readMemoryBytes() + r.readDiskBytes()))),
          count(median(runs, RunResult::pushWaits)),
          count(median(runs, RunResult::noBufferRefusals)),
          fill(runs));
    }
    tables.add(t);
  }

  private static String fill(List<RunResult> runs) {
    Series fill = new Series();
    long refusing = 0;
    long samples = 0;
    for (RunResult r : runs) {
      refusing += r.refusals().refusing();
      samples += r.refusals().samples();
      if (!Double.isNaN(r.refusals().medianFill())) {
        fill.add(r.refusals().medianFill());
      }
    }
    if (fill.isEmpty()) {
      return "never refused";
    }
    return percent(fill.median())
        + " ("
        + percent(refusing / (double) Math.max(1, samples))
        + " of samples)";
  }

  private void resources() {
    ServerBenchResults.ServerSetup s = results.throughputServer;
    Table t =
        Table.of(
            "Memory and CPU (cores of " + Runtime.getRuntime().availableProcessors() + ")",
            "Clients",
            "Peak push pool (of " + mib(s.bufferCapacity()) + ")",
            "Peak network pool",
            "Peak direct, all (of " + mib(s.directMemoryLimit()) + ")",
            "Peak RSS",
            "Server GC, share of wall time (collections)",
            "Server CPU, ingest / read",
            "Server CPU seconds per GiB, ingest / read",
            "Client JVM CPU, ingest / read",
            "Machine CPU, ingest / read");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      t.row(
          e.getKey(),
          mib(max(runs, r -> r.peaks().pushHeld())),
          mib(max(runs, r -> r.peaks().network())),
          mib(max(runs, r -> r.peaks().directTotal())),
          mib(max(runs, r -> r.peaks().resident())),
          percent2(median(runs, RunResult::gcShare))
              + " (max "
              + percent2(max(runs, RunResult::gcShare))
              + "; "
              + count(median(runs, RunResult::gcCount))
              + ")",
          pair(
              median(runs, RunResult::serverCoresIngest), median(runs, RunResult::serverCoresRead)),
          pair(
              median(runs, r -> r.serverCpuIngest() / gib(r.ackedBytes())),
              median(runs, r -> r.serverCpuRead() / gib(r.read().bytes()))),
          pair(
              median(runs, RunResult::benchmarkCoresIngest),
              median(runs, RunResult::benchmarkCoresRead)),
          pair(
              median(runs, RunResult::machineCoresIngest),
              median(runs, RunResult::machineCoresRead)));
    }
    tables.add(t);
  }

  private void contract() {
    RunResult c = results.contract;
    ServerBenchResults.ServerSetup s = results.contractServer;
    long allowance = s.directMemoryLimit() - s.bufferCapacity() - s.readCapacity();
    Table t =
        Table.of("Memory contract under oversubscription", "Check", "Measured", "Limit", "Held");
    t.row(
        "Peak push pool, chunks held (`sluice_server_push_memory_held_bytes`)",
        mib(c.peaks().pushHeld()),
        mib(s.bufferCapacity()),
        yes(c.peaks().pushHeld() <= s.bufferCapacity()));
    t.row(
        "Peak server direct memory, Netty (`sluice_server_netty_direct_memory_bytes`) + JDK",
        mib(c.peaks().directTotal())
            + " ("
            + mib(c.peaks().nettyDirect())
            + " + "
            + mib(c.peaks().jdkDirect())
            + ")",
        mib(s.directMemoryLimit()),
        yes(c.peaks().directTotal() <= s.directMemoryLimit()));
    t.row(
        "Peak network pool (`sluice_server_network_memory_bytes`)",
        mib(c.peaks().network()),
        mib(allowance) + " (the network allowance)",
        yes(c.peaks().network() <= allowance));
    t.row(
        "Blocks acknowledged, then read back intact exactly once",
        count(c.read().blocks())
            + " of "
            + count(c.ackedBlocks())
            + " ("
            + count(c.read().problems())
            + " problems"
            + (c.read().firstProblems().isEmpty()
                ? ""
                : ": " + String.join("; ", c.read().firstProblems()))
            + ")",
        "",
        yes(c.intact()));
    t.row(
        "Server's accepted bytes = acknowledged bytes",
        count(c.serverPushedBytes()) + " = " + count(c.ackedBytes()),
        "",
        yes(c.serverPushedBytes() == c.ackedBytes()));
    t.row(
        "Server still running after the run",
        results.contractServerAlive ? "yes" : "no",
        "",
        yes(results.contractServerAlive));
    tables.add(t);
    tables.add(
        Table.of(
                "Contract run",
                "Pushes held back unread",
                "NO_BUFFER answers",
                "Pool filled with blocks while refusing",
                "Acknowledged",
                "Ingest with flush",
                "Read back",
                "Server GC")
            .row(
                count(c.pushWaits()),
                count(c.noBufferRefusals()),
                Double.isNaN(c.refusals().medianFill())
                    ? "n/a"
                    : percent(c.refusals().medianFill()),
                rate(c.ackBytesPerSecond()),
                rate(c.flushedBytesPerSecond()),
                rate(c.readBytesPerSecond()),
                percent2(c.gcShare())));
    checks.add(
        new Check(
            "Memory contract: "
                + mib(c.ackedBytes())
                + " into "
                + mib(s.bufferCapacity())
                + " by "
                + c.clients()
                + " clients, direct memory within "
                + mib(s.directMemoryLimit())
                + ", every block intact",
            mib(c.peaks().directTotal()) + ", intact: " + (c.intact() ? "yes" : "no"),
            contractHeld(results)));
  }

  private void throughputTargets() {
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      double flushed = median(e.getValue(), RunResult::flushedBytesPerSecond);
      checks.add(
          new Check(
              clients(e.getKey())
                  + ": ingest with flush at least "
                  + percent(INGEST_TARGET_RATIO)
                  + " of min(loopback, disk) = "
                  + rate(limit())
                  + limitSource(),
              percent(flushed / limit()) + " (" + rate(flushed) + ")",
              flushed / limit() >= INGEST_TARGET_RATIO));
    }
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      double worst = max(e.getValue(), RunResult::gcShare);
      checks.add(
          new Check(
              clients(e.getKey())
                  + ": server GC below "
                  + percent(GC_TARGET_SHARE)
                  + " of wall time",
              percent2(worst) + " in the worst round",
              worst < GC_TARGET_SHARE));
    }
    boolean intact =
        results.runs.values().stream().flatMap(List::stream).allMatch(RunResult::intact);
    checks.add(
        new Check(
            "Every acknowledged block of every throughput run read back intact",
            intact ? "yes" : "no",
            intact));
  }

  /**
   * Each GiB's ingest CPU against the two copies no server avoids (the sockets' receive into a
   * pool, {@link ReceiveCopyProbe}, and the write to disk, dd, in the same rounds), and the ingest
   * the machine's cores allow at those costs. Needs the probes.
   */
  private void cpuBudget() {
    if (results.loopbackBytesPerSecond.isEmpty()
        || !results.pooledReceiveCpuPerGib.keySet().containsAll(results.runs.keySet())) {
      return;
    }
    int cpus = Runtime.getRuntime().availableProcessors();
    double write =
        flushesAroundCache() ? results.diskCpuPerGib.median() : results.pageCacheCpuPerGib.median();
    Table t =
        Table.of(
            "Ingest CPU per GiB against the two copies",
            "Clients",
            "Server",
            "of which the two copies",
            "Server, the rest",
            "Clients",
            "Ingest the cores allow at these costs",
            "With only the two copies on the server",
            "Measured ingest");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      double server = median(runs, r -> r.serverCpuIngest() / gib(r.ackedBytes()));
      double clients =
          median(runs, r -> r.benchmarkCoresIngest() * r.ingestEndSeconds() / gib(r.ackedBytes()));
      double copies = results.pooledReceiveCpuPerGib.get(e.getKey()).median() + write;
      double allowed = cpus / (server + clients) * (1L << 30);
      double lean = cpus / (copies + clients) * (1L << 30);
      double measured = median(runs, RunResult::flushedBytesPerSecond);
      t.row(
          e.getKey(),
          cores(server),
          cores(copies),
          cores(server - copies),
          cores(clients),
          ofLimit(allowed),
          ofLimit(lean),
          ofLimit(measured));
    }
    tables.add(t);
  }

  /** Whether the throughput server writes its flushes around the page cache (flush.direct all). */
  private boolean flushesAroundCache() {
    String key = ServerOptions.FLUSH_DIRECT.key() + " ";
    String direct = ServerOptions.FLUSH_DIRECT.defaultValueText();
    for (String line : results.throughputServer.conf()) {
      if (line.startsWith(key)) {
        direct = line.substring(key.length()).trim();
      }
    }
    return direct.equals("all");
  }

  /** The server's ingest CPU per GiB by its threads ({@code sluice_server_cpu_seconds_total}). */
  private void threadCpu() {
    Table t = threadTable("Server CPU seconds per GiB ingested, by thread group", "Clients");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<Object> row = new ArrayList<>(List.of(e.getKey()));
      threadCells(row, e.getValue(), RunResult::serverThreadCpuIngest, RunResult::ackedBytes);
      t.row(row.toArray());
    }
    tables.add(t);
  }

  /**
   * The server's CPU per GiB read back by its threads, beside {@link SendfileProbe}'s when it ran:
   * the server sends what it flushed with sendfile, which the probe does and nothing else.
   */
  private void readCpu() {
    boolean probed = results.sendfileCpuPerGib.keySet().containsAll(results.runs.keySet());
    Table t =
        probed
            ? threadTable(
                "Server CPU seconds per GiB read back",
                "Clients",
                "Server",
                "sendfile alone",
                "Server, the rest")
            : threadTable("Server CPU seconds per GiB read back", "Clients", "Server");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      double server = median(runs, r -> r.serverCpuRead() / gib(r.read().bytes()));
      List<Object> row = new ArrayList<>(List.of(e.getKey(), cores(server)));
      if (probed) {
        double sendfile = results.sendfileCpuPerGib.get(e.getKey()).median();
        row.add(cores(sendfile));
        row.add(cores(server - sendfile));
      }
      threadCells(row, runs, RunResult::serverThreadCpuRead, r -> r.read().bytes());
      t.row(row.toArray());
    }
    tables.add(t);
  }

  private static Table threadTable(String title, String... leading) {
    List<String> columns = new ArrayList<>(List.of(leading));
    columns.addAll(MetricsPoller.THREAD_GROUPS);
    return new Table(title, columns, new ArrayList<>());
  }

  /** Each thread group's median CPU seconds per GiB of {@code bytes}. */
  private static void threadCells(
      List<Object> row,
      List<RunResult> runs,
      Function<RunResult, Map<String, Double>> cpu,
      ToDoubleFunction<RunResult> bytes) {
    for (String g : MetricsPoller.THREAD_GROUPS) {
      row.add(
          cores(
              median(runs, r -> cpu.apply(r).getOrDefault(g, 0.0) / gib(bytes.applyAsDouble(r)))));
    }
  }

  private void profile(String phase, JfrProfile.Summary p) {
    String title = phase + " with " + clients(results.profiledClients) + ", server profile";
    Table java =
        Table.of(
            title + String.format(Locale.ROOT, ": %,d Java samples", p.samples()),
            "Thread",
            "Share",
            "Top frame",
            "Share",
            "Innermost Sluice frame",
            "Share");
    int rows =
        Math.max(p.threads().size(), Math.max(p.topFrames().size(), p.sluiceFrames().size()));
    for (int i = 0; i < rows; i++) {
      List<String> row = new ArrayList<>();
      cell(row, p.threads(), i, p.samples());
      cell(row, p.topFrames(), i, p.samples());
      cell(row, p.sluiceFrames(), i, p.samples());
      java.row(row.toArray());
    }
    tables.add(java);
    Table nativeCalls =
        Table.of(
            title + String.format(Locale.ROOT, ": %,d native samples", p.nativeSamples()),
            "Thread and native method",
            "Share");
    for (int i = 0; i < p.nativeCalls().size(); i++) {
      List<String> row = new ArrayList<>();
      cell(row, p.nativeCalls(), i, p.nativeSamples());
      nativeCalls.row(row.toArray());
    }
    tables.add(nativeCalls);
  }

  private static void cell(List<String> row, List<JfrProfile.Count> counts, int i, long total) {
    if (i >= counts.size()) {
      row.add("");
      row.add("");
    } else {
      JfrProfile.Count c = counts.get(i);
      row.add("`" + c.name() + "`");
      row.add(percent(c.samples() / (double) total));
    }
  }

  // ---- figures ----

  /** min(loopback, disk) of the medians; the disk alone when iperf3 was not run. */
  private double limit() {
    double disk = results.diskBytesPerSecond.median();
    return results.loopbackBytesPerSecond.isEmpty()
        ? disk
        : Math.min(disk, results.loopbackBytesPerSecond.median());
  }

  private String limitSource() {
    if (results.loopbackBytesPerSecond.isEmpty()) {
      return " (the disk's; iperf3 not run)";
    }
    return results.diskBytesPerSecond.median() <= results.loopbackBytesPerSecond.median()
        ? " (the disk's)"
        : " (loopback's)";
  }

  private String ofLimit(double bytesPerSecond) {
    return rate(bytesPerSecond) + " (" + percent(bytesPerSecond / limit()) + ")";
  }

  private static Series series(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    Series s = new Series();
    runs.forEach(r -> s.add(f.applyAsDouble(r)));
    return s;
  }

  private static double median(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    return series(runs, f).median();
  }

  private static double max(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    return series(runs, f).max();
  }

  private static double gib(double bytes) {
    return bytes / (1L << 30);
  }

  private static String rateWithRange(Series s) {
    return rate(s.median()) + " (" + range(s) + ")";
  }

  private static String range(Series s) {
    return String.format(Locale.ROOT, "%,.0f-%,.0f", s.min() / (1 << 20), s.max() / (1 << 20));
  }

  private static String cores(double cores) {
    return Double.isNaN(cores) ? "n/a" : String.format(Locale.ROOT, "%.2f", cores);
  }

  private static String pair(double a, double b) {
    return cores(a) + " / " + cores(b);
  }

  private static String yes(boolean held) {
    return held ? "**yes**" : "**no**";
  }

  private static String clients(int n) {
    return n + (n == 1 ? " client" : " clients");
  }

  private static String connections(int n) {
    return n + (n == 1 ? " connection" : " connections");
  }

  private static String join(List<Integer> values) {
    return String.join(", ", values.stream().map(String::valueOf).toList());
  }

  /** The JVM options of a command line: what lies between the executable and the main class. */
  static String jvmOptions(String commandLine) {
    String[] parts = commandLine.split(" ");
    StringBuilder options = new StringBuilder();
    for (int i = 1; i < parts.length; i++) {
      if (parts[i].equals("-cp") || parts[i].equals("-classpath")) {
        i++;
        continue;
      }
      if (!parts[i].startsWith("-")) {
        break;
      }
      if (parts[i].startsWith("-Dlog4j2.configurationFile")
          || parts[i].startsWith("-Dsluice.log")
          || parts[i].startsWith("-Dsluice.ready")
          || parts[i].startsWith("-XX:StartFlightRecording")) {
        continue;
      }
      options.append(options.length() == 0 ? "" : " ").append(parts[i]);
    }
    return options.toString();
  }

  private static String relative(String path) {
    String cwd = java.nio.file.Path.of("").toAbsolutePath() + "/";
    return path.startsWith(cwd) ? path.substring(cwd.length()) : path;
  }
}
