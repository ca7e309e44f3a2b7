package io.sluice.benchmark.tpc;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.CoordinatorStatus;
import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.SparkRun;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.common.metrics.Json;
import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.ProcessCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TPC-style shuffle benchmark: Sluice against Spark's built-in sort shuffle in one invocation.
 * Generates the tables once, starts a coordinator and two servers with the shipped scripts when the
 * sluice mode runs, then for each round submits {@link TpcJob} once per mode in alternation (A B A
 * B), each in a fresh JVM, while polling the servers' {@code /metrics}. Writes every raw figure as
 * JSON, the report docs/benchmarks/tpc.md ({@code tpc-spark-4.md} for {@code --spark 4}) and a PNG
 * chart (options: {@link TpcSettings}). Exits with 1 when a run failed or two answers differ.
 */
public final class TpcBenchmark {
  /**
   * The sluice mode's shuffle manager. Its {@code spark.sluice.*} keys below are written out as in
   * docs/client.md: this module does not depend on client-spark, whose option class holds them.
   */
  /** Gauges whose peaks, and counters whose increases, are reported per server and query. */
  private static final List<Map.Entry<String, String>> PEAKS =
      List.of(
          Map.entry("peakDirectMemoryBytes", MetricsPoller.NETTY_DIRECT),
          Map.entry("peakPushMemoryBytes", MetricsPoller.PUSH_HELD),
          Map.entry("peakHeapBytes", MetricsPoller.HEAP));

  private static final List<Map.Entry<String, String>> INCREASES = increases();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static List<Map.Entry<String, String>> increases() {
    List<Map.Entry<String, String>> increases =
        new ArrayList<>(
            List.of(
                Map.entry("gcMs", MetricsPoller.GC_SECONDS),
                Map.entry("cpuMs", MetricsPoller.CPU_SECONDS),
                Map.entry("flushedBytes", MetricsPoller.FLUSHED),
                Map.entry("pushedBytes", MetricsPoller.PUSHED),
                Map.entry("readBytes", MetricsPoller.READ),
                Map.entry("pushRejections", MetricsPoller.REJECTIONS)));
    for (String group : MetricsPoller.THREAD_GROUPS) {
      increases.add(Map.entry(threadCpuKey(group), MetricsPoller.threadCpu(group)));
    }
    return List.copyOf(increases);
  }

  /** The key of a server's figures that holds what a group of its threads spent, in ms. */
  static String threadCpuKey(String group) {
    return "cpu." + group + "Ms";
  }

  /** Rows of each list of a query's profile (--profile). */
  private static final int PROFILE_ROWS = 12;

  private TpcBenchmark() {}

  public static void main(String[] args) throws Exception {
    TpcSettings s = TpcSettings.FLAGS.parseOrExit(args, TpcSettings::new);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path out = s.output;
    Path logs = out.resolve("logs-" + stamp);
    Files.createDirectories(logs);
    Tables tables = ensureTables(s, logs);

    List<RunRecord> runs = new ArrayList<>();
    RunRecord warmUp = null;
    ProcessCluster cluster = null;
    MetricsPoller poller = null;
    Thread cleanup = null;
    try {
      String coordinators = s.coordinators;
      List<String> serverHttp = List.of();
      if (s.modes.contains(Mode.SLUICE) && coordinators == null) {
        System.out.println("== Starting a coordinator and two shuffle servers");
        cluster =
            ProcessCluster.withScripts(s.home, 2, s.serverSizing)
                .in(out.resolve("cluster"))
                .serverSettings(s.serverConf)
                .create();
        ProcessCluster started = cluster;
        cleanup =
            new Thread(
                () -> {
                  try {
                    started.close();
                  } catch (Exception e) {
                    System.err.println("stopping the cluster: " + e);
                  }
                });
        Runtime.getRuntime().addShutdownHook(cleanup);
        cluster.start();
        coordinators = cluster.coordinatorAddress();
        serverHttp = cluster.httpAddresses();
      } else if (s.modes.contains(Mode.SLUICE)) {
        serverHttp = CoordinatorStatus.serverHttpAddresses(s.coordinatorHttp);
        System.out.println(
            "== Sluice at "
                + coordinators
                + (serverHttp.isEmpty()
                    ? "; no server listed at " + s.coordinatorHttp + ": no server figures"
                    : "; reading the /metrics of " + String.join(", ", serverHttp)));
      }
      if (!serverHttp.isEmpty()) {
        List<String> keys = new ArrayList<>();
        PEAKS.forEach(e -> keys.add(e.getValue()));
        INCREASES.forEach(e -> keys.add(e.getValue()));
        poller = MetricsPoller.at(serverHttp, keys, Duration.ofMillis(s.scrapeMs)).start();
      }
      if (s.modes.contains(Mode.SLUICE) && s.warmUp) {
        // The servers are long-lived: their JIT compiles once per start, not once per job.
        System.out.println("== Warm-up: sluice, not counted");
        warmUp = runOnce(s, Mode.SLUICE, 0, coordinators, cluster, poller, logs);
      }
      for (int round = 1; round <= s.rounds; round++) {
        for (Mode mode : s.modes) {
          System.out.println("== Round " + round + "/" + s.rounds + ": " + mode.label());
          runs.add(runOnce(s, mode, round, coordinators, cluster, poller, logs));
        }
      }
    } finally {
      if (poller != null) {
        poller.close();
      }
      if (cluster != null) {
        System.out.println("== Stopping the cluster");
        cluster.close();
        Runtime.getRuntime().removeShutdownHook(cleanup);
      }
    }

    TpcSummary summary = new TpcSummary(s.suite, queries(s, runs), s.modes, runs);
    Map<String, Object> environment = environment(s, tables);
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("benchmark", s.suite.label());
    results.put("timestamp", stamp);
    results.put("command", s.command);
    results.put("environment", environment);
    results.put("summary", summary.toMap());
    List<Object> rawRuns = new ArrayList<>();
    runs.forEach(r -> rawRuns.add(r.toMap()));
    results.put("runs", rawRuns);
    if (warmUp != null) {
      results.put("warmUp", warmUp.toMap());
    }
    Path json = out.resolve("results-" + stamp + ".json");
    Files.writeString(json, Json.write(results) + "\n", StandardCharsets.UTF_8);
    System.out.println("== Results: " + json);

    String chartTitle =
        s.suite.title()
            + " at SF "
            + ScaleFactor.format(s.scale)
            + ", Spark "
            + environment.get("spark")
            + ", "
            + s.master;
    List<String> charts = new ArrayList<>();
    if (s.chart != null) {
      TpcChart.write(summary, chartTitle, s.chart);
      System.out.println("== Chart: " + s.chart);
      if (s.markdown != null) {
        charts.add(
            s.markdown
                .toAbsolutePath()
                .getParent()
                .relativize(s.chart.toAbsolutePath())
                .toString());
      }
    }
    // The record keeps the results as written (numbers that are not numbers as null).
    BenchRecord record =
        TpcReport.record(
            JSON.readValue(json.toFile(), new TypeReference<Map<String, Object>>() {}),
            summary,
            s.section(),
            (s.suite == Suite.TPC ? "TPC-style shuffle benchmark" : s.suite.title())
                + (s.spark.equals("3.5") ? "" : " on Spark " + s.spark)
                + ": Sluice against Spark's sort shuffle",
            charts);
    BenchmarkReport.publish(record, s.markdown);
    System.exit(summary.answersAgree() ? 0 : 1);
  }

  /**
   * The queries in their order: the TPC-style suite's from its list; TPC-DS's as the runs' events
   * name them (the texts live in Spark's test jar, which the harness does not load).
   */
  private static List<String> queries(TpcSettings s, List<RunRecord> runs) {
    if (s.suite == Suite.TPC) {
      return QuerySpec.select(s.queries).stream().map(QuerySpec::label).toList();
    }
    if (s.suite == Suite.RDD) {
      return List.of(QuerySpec.PARTITION_BY.label());
    }
    Set<String> named = new LinkedHashSet<>();
    if (!s.queries.equals("all")) {
      named.addAll(List.of(s.queries.split(",")));
    }
    runs.forEach(r -> r.queries().forEach(q -> named.add(String.valueOf(q.get("query")))));
    return List.copyOf(named);
  }

  /** The suite's tables: where they are, what generating them took (0: there already), bytes. */
  record Tables(DataLocation location, long generationMs, long bytes) {}

  /**
   * Generates the suite's tables at the settings' scale with the settings' master, unless they are
   * complete already. Tables on this machine are checked here; those elsewhere (a URI such as
   * hdfs://) only a Spark job can see, so one is submitted every time and keeps them when complete.
   */
  static Tables ensureTables(TpcSettings s, Path logs) throws IOException, InterruptedException {
    DataLocation tables = s.suite.tables(s.data, s.scale, s.seed);
    if (s.suite == Suite.RDD) {
      return new Tables(tables, 0, 0);
    }
    if (tables.local() && s.suite.complete(tables, DataLocation::existsLocally)) {
      System.out.println("== Using the tables in " + tables);
      return new Tables(tables, 0, directoryBytes(tables.localPath()));
    }
    System.out.println("== Tables of SF " + ScaleFactor.format(s.scale) + " in " + tables);
    long t0 = System.nanoTime();
    Path log = logs.resolve("generate.log");
    SparkRun gen =
        submit(
            s,
            Mode.BUILTIN,
            Map.of(),
            List.of(),
            List.of(
                "--generate",
                "--data",
                s.data.uri(),
                "--scale",
                String.valueOf(s.scale),
                "--seed",
                String.valueOf(s.seed)),
            log);
    if (gen.run(Map.of(), s.runTimeout) != 0) {
      throw new IllegalStateException("generating the tables failed; see " + log);
    }
    long generationMs = (System.nanoTime() - t0) / 1_000_000;
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    boolean generated = lines.stream().anyMatch(l -> l.startsWith("Generated SF "));
    for (String line : lines) {
      if (line.startsWith(TpcJob.TABLES_LINE + tables + ": ")) {
        long bytes = Long.parseLong(line.replaceAll(".*: (\\d+) bytes$", "$1"));
        return new Tables(tables, generated ? generationMs : 0, bytes);
      }
    }
    throw new IllegalStateException("the tables are not complete after generating; see " + log);
  }

  /**
   * {@link TpcJob}'s arguments to run the settings' queries, writing their lines to {@code events}.
   */
  static List<String> queryArgs(TpcSettings s, Path events) {
    return List.of(
        "--data",
        s.data.uri(),
        "--scale",
        String.valueOf(s.scale),
        "--seed",
        String.valueOf(s.seed),
        "--queries",
        s.queries,
        "--events",
        events.toString());
  }

  /** A SparkSubmit of {@link TpcJob} in {@code mode}, with every mode's settings and its own. */
  static SparkRun submit(
      TpcSettings s,
      Mode mode,
      Map<String, String> modeConf,
      List<String> jvmOptions,
      List<String> jobArgs,
      Path log) {
    Map<String, String> conf = new LinkedHashMap<>(s.commonSparkConf());
    conf.putAll(modeConf);
    List<Path> jars = new ArrayList<>();
    if (s.suite == Suite.RDD) {
      jobArgs = new ArrayList<>(jobArgs);
      jobArgs.add("--rdd");
    } else if (s.suite == Suite.TPCDS) {
      jars.addAll(s.install().tpcdsJars());
      jobArgs = new ArrayList<>(jobArgs);
      jobArgs.add("--tpcds");
    }
    if (mode.usesClientJar() && s.onYarn()) {
      // YARN localizes spark.jars into every container, where the executors name the client jar
      // by its file name (TpcSettings.sluiceConf).
      jars.add(s.install().shadedClientJar());
    }
    if (!jars.isEmpty()) {
      conf.merge(
          "spark.jars",
          String.join(",", jars.stream().map(Path::toString).toList()),
          (given, ours) -> given + "," + ours);
    }
    return SparkRun.of(
        s.install(),
        s.driverMemory(),
        s.master(),
        mode.usesClientJar(),
        conf,
        jvmOptions,
        TpcJob.class.getName(),
        jobArgs,
        log,
        line ->
            line.startsWith("Query ")
                || line.startsWith("Generated ")
                || line.startsWith(TpcJob.TABLES_LINE));
  }

  /**
   * @param coordinators the Sluice deployment's, for the sluice mode
   * @param cluster the servers the harness started, for their logs when a run fails; null for an
   *     existing deployment's
   */
  private static RunRecord runOnce(
      TpcSettings s,
      Mode mode,
      int round,
      String coordinators,
      ProcessCluster cluster,
      MetricsPoller poller,
      Path logs)
      throws IOException, InterruptedException {
    Map<String, String> conf = new LinkedHashMap<>();
    if (mode == Mode.SLUICE) {
      conf.putAll(s.sluiceConf(coordinators));
    }
    Path events = logs.resolve("round-" + round + "-" + mode.label() + ".jsonl");
    Path log = logs.resolve("round-" + round + "-" + mode.label() + ".log");
    Path recording = logs.resolve("round-" + round + "-" + mode.label() + ".jfr");
    List<String> jvmOptions =
        s.profile
            ? List.of("-XX:StartFlightRecording=filename=" + recording + ",settings=profile")
            : List.of();
    SparkRun run = submit(s, mode, conf, jvmOptions, queryArgs(s, events), log);
    long start = System.currentTimeMillis();
    int exit = run.run(Map.of(), s.runTimeout);
    long end = System.currentTimeMillis();
    List<Map<String, Object>> lines = new ArrayList<>();
    if (Files.exists(events)) {
      for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        Map<String, Object> q = JSON.readValue(line, new TypeReference<>() {});
        if (poller != null && mode == Mode.SLUICE) {
          q.put("servers", servers(poller, Figures.num(q, "startMs"), Figures.num(q, "endMs")));
        }
        if (s.profile && Files.exists(recording)) {
          q.put(
              "profile",
              JSON.convertValue(
                  JfrProfile.summarize(
                      recording,
                      List.of(
                          new JfrProfile.Window(
                              Instant.ofEpochMilli(Figures.num(q, "startMs")),
                              Instant.ofEpochMilli(Figures.num(q, "endMs")))),
                      PROFILE_ROWS),
                  Map.class));
          q.put("recording", s.home.relativize(recording).toString());
        }
        lines.add(q);
      }
    }
    if (exit != 0) {
      System.out.println("  exited with " + exit + "; see " + log + "; its last lines:");
      System.out.println(Daemons.tail(log, 40));
      if (cluster != null && mode == Mode.SLUICE) {
        System.out.println(cluster.logTails(20));
        System.out.println(cluster.serverMetrics());
      }
    }
    return new RunRecord(
        round,
        mode,
        exit,
        start,
        end,
        log.toString(),
        lines,
        poller != null && mode == Mode.SLUICE ? servers(poller, start, end) : null);
  }

  /**
   * What each server did between two instants: the peak of each gauge over the samples inside, and
   * the increase of each counter from the last sample at or before {@code fromMs} to the first at
   * or after {@code toMs}, in milliseconds for the seconds counters.
   */
  private static List<Map<String, Object>> servers(MetricsPoller poller, long fromMs, long toMs) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int i = 0; i < poller.servers(); i++) {
      List<MetricsPoller.Sample> samples = poller.samples(i);
      MetricsPoller.Sample before = null;
      MetricsPoller.Sample after = samples.isEmpty() ? null : samples.get(samples.size() - 1);
      List<MetricsPoller.Sample> inside = new ArrayList<>();
      for (MetricsPoller.Sample s : samples) {
        before = s.epochMs() <= fromMs ? s : before;
        if (s.epochMs() >= fromMs && s.epochMs() <= toMs) {
          inside.add(s);
        }
      }
      for (MetricsPoller.Sample s : samples) {
        if (s.epochMs() >= toMs) {
          after = s;
          break;
        }
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("server", i + 1);
      m.put("samples", inside.size());
      for (Map.Entry<String, String> e : PEAKS) {
        m.put(
            e.getKey(),
            (long) inside.stream().mapToDouble(s -> s.get(e.getValue())).max().orElse(0));
      }
      for (Map.Entry<String, String> e : INCREASES) {
        double end = after == null ? 0 : after.get(e.getValue());
        double increase =
            Math.max(0, end - (before == null || after == null ? 0 : before.get(e.getValue())));
        m.put(
            e.getKey(), e.getKey().endsWith("Ms") ? Math.round(increase * 1000) : (long) increase);
      }
      out.add(m);
    }
    return out;
  }

  private static Map<String, Object> environment(TpcSettings s, Tables tables) throws IOException {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("machine", BenchmarkReport.machine(s.home.resolve("docs")));
    e.put("commit", BenchmarkReport.commit(s.home));
    e.put("java", System.getProperty("java.version"));
    e.put("spark", sparkVersion(s));
    e.put(
        "sluice",
        s.install()
            .benchmarkJar()
            .getFileName()
            .toString()
            .replace("sluice-benchmark-", "")
            .replace(".jar", ""));
    e.put("scale", s.scale);
    e.put("seed", s.seed);
    e.put("suite", s.suite.label());
    if (s.suite == Suite.TPC) {
      e.put("orders", TableLayout.orderCount(s.scale));
    }
    e.put("tables", tables.location().uri());
    e.put("tableBytes", tables.bytes());
    e.put("generationMs", tables.generationMs());
    e.put("rounds", s.rounds);
    e.put("modes", s.modes.stream().map(Mode::label).toList());
    e.put("master", s.master);
    e.put("clientJar", s.install().shadedClientJar().getFileName().toString());
    if (s.coordinators != null) {
      e.put("coordinators", s.coordinators);
      e.put("coordinatorHttp", s.coordinatorHttp);
    }
    e.put("driverMemory", s.driverMemory);
    e.put("sparkConf", s.commonSparkConf());
    e.put("sluiceConf", s.sluiceConf);
    e.put("scrapeMs", s.scrapeMs);
    e.put(
        "serverSizing",
        Map.of(
            "bufferCapacity",
            s.serverSizing.bufferCapacity(),
            "readBufferCapacity",
            s.serverSizing.readBufferCapacity(),
            "heap",
            s.serverSizing.heap()));
    e.put("serverConf", s.serverConf);
    e.put(
        "sparkJavaOptions",
        s.install().sparkJavaOptions().stream().filter(o -> !o.startsWith("--add-opens")).toList());
    return e;
  }

  private static String sparkVersion(TpcSettings s) throws IOException {
    try (Stream<Path> jars = Files.list(s.install().sparkHome().resolve("jars"))) {
      return jars.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("spark-core_"))
          .findFirst()
          .map(n -> n.replaceAll("^spark-core_[0-9.]+-", "").replace(".jar", ""))
          .orElse("unknown");
    }
  }

  private static long directoryBytes(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
