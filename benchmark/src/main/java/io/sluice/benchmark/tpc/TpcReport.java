package io.sluice.benchmark.tpc;

import static io.sluice.benchmark.tpc.Figures.bytes;
import static io.sluice.benchmark.tpc.Figures.ratio;
import static io.sluice.benchmark.tpc.Figures.seconds;

import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Table;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The record of one invocation of the TPC-style, TPC-DS or RDD benchmark, built from its results
 * alone (what {@link TpcBenchmark} writes: environment, every run's query lines and server figures,
 * the warm-up run), which the record keeps as its raw figures. What the tables mean is written
 * above the section in each report's Markdown file.
 */
final class TpcReport {
  private static final double GIB = 1L << 30;

  private TpcReport() {}

  /**
   * The record of the results in section {@code section} headed {@code title}, with {@code charts}
   * (paths relative to the report) shown above its tables. It ran when its last run ended.
   */
  static BenchRecord record(
      Map<String, Object> results,
      TpcSummary s,
      String section,
      String title,
      List<String> charts) {
    Map<String, Object> env = map(results, "environment");
    List<RunRecord> runs = runs(results);
    long end = runs.stream().mapToLong(RunRecord::endMs).max().orElse(0);
    List<Table> tables = new ArrayList<>();
    tables.add(queries(s));
    tables.add(cpuPerGib(s));
    if (jvmThreadsMeasured(s)) {
      tables.add(jvmThreads(s));
    }
    tables.add(stages(s));
    if (s.serversMeasured()) {
      tables.add(servers(s));
      tables.add(serverThreads(s));
    }
    tables.addAll(profiles(s));
    Table notes = notes(s);
    if (!notes.rows().isEmpty()) {
      tables.add(notes);
    }
    if (s.suite == Suite.TPC) {
      Table descriptions = Table.of("Queries", "Query", "What it does");
      for (QuerySpec q : QuerySpec.values()) {
        if (s.queries.contains(q.label())) {
          descriptions.row(q.label(), q.description());
        }
      }
      tables.add(descriptions);
    }
    return new BenchRecord(
        section,
        null,
        title,
        Instant.ofEpochMilli(end).toString(),
        String.valueOf(env.get("machine")),
        String.valueOf(results.get("command")),
        String.valueOf(env.getOrDefault("commit", "not recorded")),
        settings(s, env, runs, results),
        tables,
        s.checks(),
        charts,
        results);
  }

  private static Map<String, String> settings(
      TpcSummary s, Map<String, Object> env, List<RunRecord> runs, Map<String, Object> results) {
    Map<String, String> settings = new LinkedHashMap<>();
    double scale = ((Number) env.get("scale")).doubleValue();
    String sf = ScaleFactor.format(scale);
    settings.put(
        "Workload",
        switch (s.suite) {
          case TPC -> {
            long orders = Figures.num(env, "orders");
            yield String.format(
                Locale.ROOT,
                "scale factor %s: %,d orders, about %,d lineitem rows, %s of Parquet, seed %d",
                sf,
                orders,
                orders * 4,
                bytes(Figures.num(env, "tableBytes")),
                Figures.num(env, "seed"));
          }
          case RDD ->
              String.format(
                  Locale.ROOT,
                  "scale factor %s: `partitionBy(new HashPartitioner(%d))` of %,d records of a"
                      + " random `long` key and 100 random bytes, made in %d map tasks",
                  sf,
                  Suite.RDD_PARTITIONS,
                  TableLayout.orderCount(scale) * 10 / 3,
                  Suite.RDD_PARTITIONS);
          case TPCDS ->
              String.format(
                  Locale.ROOT,
                  "scale factor %s: %s of Parquet; every query text of Spark's own test jar",
                  sf,
                  bytes(Figures.num(env, "tableBytes")));
        });
    settings.put(
        "Spark",
        env.get("spark")
            + ", `--master "
            + env.get("master")
            + "`, driver heap "
            + env.get("driverMemory")
            + ", Kryo, AQE on, "
            + (s.suite == Suite.TPCDS
                ? "Spark's default broadcast threshold"
                : "broadcast joins off")
            + ", lz4");
    settings.put(
        "Rounds",
        env.get("rounds")
            + ", each "
            + String.join(" then ", s.modes.stream().map(Mode::label).toList())
            + ", each run a fresh SparkSubmit JVM");
    if (s.modes.contains(Mode.SLUICE)) {
      String client =
          env.get("sluice")
              + (env.containsKey("clientJar") ? " (client " + env.get("clientJar") + ")" : "");
      if (env.containsKey("coordinators")) {
        settings.put(
            "Sluice",
            client
                + ": the deployment of coordinators "
                + env.get("coordinators")
                + ", its servers' /metrics read every "
                + env.get("scrapeMs")
                + " ms where "
                + env.getOrDefault("coordinatorHttp", "its coordinator")
                + " lists them");
      } else {
        StringBuilder sizing = new StringBuilder();
        Map<String, Object> sized = map(env, "serverSizing");
        sizing.append("buffer.capacity ").append(sized.get("bufferCapacity"));
        sizing.append(", read.buffer.capacity ").append(sized.get("readBufferCapacity"));
        sizing.append(", heap ").append(sized.get("heap"));
        map(env, "serverConf")
            .forEach((k, v) -> sizing.append(", ").append(k).append(' ').append(v));
        settings.put(
            "Sluice",
            client
                + ": a coordinator and two servers on this machine from bin/start-coordinator.sh"
                + " and bin/start-server.sh ("
                + sizing
                + "), through the whole invocation, their /metrics read every "
                + env.get("scrapeMs")
                + " ms");
      }
      if (!map(env, "sluiceConf").isEmpty()) {
        settings.put("Client settings", String.valueOf(env.get("sluiceConf")));
      }
      settings.put("Warm-up", warmUp(results));
    }
    settings.put(
        "SparkSubmit runs in all",
        seconds(runs.stream().mapToLong(RunRecord::wallMs).sum()) + " s");
    return settings;
  }

  private static String warmUp(Map<String, Object> results) {
    if (!(results.get("warmUp") instanceof Map<?, ?>)) {
      return "none (`--no-warmup`)";
    }
    RunRecord warmUp = RunRecord.of(map(results, "warmUp"));
    StringBuilder sb =
        new StringBuilder("one sluice run before round 1, not counted: ")
            .append(seconds(warmUp.wallMs()))
            .append(" s, exit code ")
            .append(warmUp.exitCode());
    if (warmUp.servers() != null) {
      double jit = 0;
      for (Map<String, Object> server : warmUp.servers()) {
        jit += Figures.num(server, TpcBenchmark.threadCpuKey("compiler"));
      }
      sb.append(", the servers' JIT ").append(seconds(jit)).append(" CPU-s");
    }
    return sb.toString();
  }

  /** Per query: each mode's median time (range), the ratio, shuffle bytes, CPU and GC. */
  private static Table queries(TpcSummary s) {
    List<String> columns = new ArrayList<>(List.of("Query"));
    s.modes.forEach(m -> columns.add(m.label() + " (s)"));
    if (s.compares()) {
      columns.add("sluice / builtin");
    }
    columns.addAll(
        List.of(
            "Shuffle written", "Shuffle read", "Task CPU (s)", "Spark JVM CPU (s)", "Task GC (s)"));
    Table t = Table.of("", columns.toArray(String[]::new));
    for (String q : s.queries) {
      List<Object> row = new ArrayList<>(List.of(q));
      for (Mode m : s.modes) {
        QueryStats st = s.get(q, m);
        row.add(
            seconds(st.medianMs()) + " (" + seconds(st.minMs()) + "-" + seconds(st.maxMs()) + ")");
      }
      if (s.compares()) {
        row.add(ratio(s.ratio(q)));
      }
      row.add(perMode(s, q, st -> bytes(st.shuffleWriteBytes())));
      row.add(perMode(s, q, st -> bytes(st.shuffleReadBytes())));
      row.add(perMode(s, q, st -> seconds(st.cpuMs())));
      row.add(perMode(s, q, st -> seconds(st.jvmCpuMs())));
      row.add(perMode(s, q, st -> seconds(st.taskGcMs())));
      t.row(row.toArray());
    }
    List<Object> total = new ArrayList<>(List.of("total"));
    s.modes.forEach(m -> total.add(seconds(s.totalMs(m))));
    if (s.compares()) {
      total.add(ratio(s.totalRatio()));
    }
    total.add(
        String.join(" / ", s.modes.stream().map(m -> bytes(s.totalShuffleWriteBytes(m))).toList()));
    total.addAll(List.of("", "", "", ""));
    return t.row(total.toArray());
  }

  /**
   * CPU-seconds per GiB of shuffle written: each mode's Spark JVM and, through Sluice, its servers.
   * Without the servers' figures Sluice's whole is not known: no ratio rather than a flattering
   * one.
   */
  private static Table cpuPerGib(TpcSummary s) {
    boolean servers = s.serversMeasured();
    boolean whole = s.compares() && servers;
    List<String> columns = new ArrayList<>(List.of("Query"));
    s.modes.forEach(m -> columns.add(m.label() + ": Spark JVM"));
    if (servers) {
      columns.add("sluice: servers");
    }
    if (whole) {
      columns.add("sluice (JVM + servers) / builtin");
    }
    Table t = Table.of("CPU-seconds per GiB of shuffle written", columns.toArray(String[]::new));
    double[] jvm = new double[s.modes.size()];
    double[] gib = new double[s.modes.size()];
    double serverCpu = 0;
    for (String q : s.queries) {
      List<Object> row = new ArrayList<>(List.of(q));
      for (int i = 0; i < s.modes.size(); i++) {
        QueryStats st = s.get(q, s.modes.get(i));
        jvm[i] += st.jvmCpuMs();
        gib[i] += st.shuffleWriteBytes() / GIB;
        row.add(perGib(st.jvmCpuMs(), st.shuffleWriteBytes() / GIB));
      }
      if (servers) {
        QueryStats st = s.get(q, Mode.SLUICE);
        serverCpu += st.serverCpuMs();
        row.add(perGib(st.serverCpuMs(), st.shuffleWriteBytes() / GIB));
      }
      if (whole) {
        QueryStats b = s.get(q, Mode.BUILTIN);
        QueryStats sl = s.get(q, Mode.SLUICE);
        row.add(
            ratio(
                (sl.jvmCpuMs() + sl.serverCpuMs())
                    / sl.shuffleWriteBytes()
                    / (b.jvmCpuMs() / b.shuffleWriteBytes())));
      }
      t.row(row.toArray());
    }
    List<Object> all = new ArrayList<>(List.of("all queries"));
    for (int i = 0; i < s.modes.size(); i++) {
      all.add(perGib(jvm[i], gib[i]));
    }
    int sluice = s.modes.indexOf(Mode.SLUICE);
    if (servers) {
      all.add(perGib(serverCpu, gib[sluice]));
    }
    if (whole) {
      int builtin = s.modes.indexOf(Mode.BUILTIN);
      all.add(ratio((jvm[sluice] + serverCpu) / gib[sluice] / (jvm[builtin] / gib[builtin])));
    }
    return t.row(all.toArray());
  }

  private static boolean jvmThreadsMeasured(TpcSummary s) {
    return s.queries.stream()
        .allMatch(q -> s.modes.stream().allMatch(m -> !s.get(q, m).jvmThreadCpuMs().isEmpty()));
  }

  /** The Spark JVM's CPU by group of threads ({@code JvmThreadCpu}), beside the servers'. */
  private static Table jvmThreads(TpcSummary s) {
    boolean servers = s.serversMeasured();
    List<String> columns = new ArrayList<>(List.of("Query"));
    columns.addAll(JvmThreadCpu.GROUPS);
    if (servers) {
      columns.add("Sluice's servers");
    }
    columns.add("all");
    Table t =
        Table.of(
            "The Spark JVM's CPU by its threads (s; "
                + String.join(" / ", s.modes.stream().map(Mode::label).toList())
                + ")",
            columns.toArray(String[]::new));
    for (String q : s.queries) {
      List<Object> row = new ArrayList<>(List.of(q));
      for (String g : JvmThreadCpu.GROUPS) {
        row.add(perMode(s, q, st -> seconds(st.jvmThreadCpuMs().getOrDefault(g, 0.0))));
      }
      if (servers) {
        row.add(seconds(s.get(q, Mode.SLUICE).serverCpuMs()));
      }
      row.add(
          perMode(
              s,
              q,
              st ->
                  seconds(
                      st.jvmThreadCpuMs().values().stream().mapToDouble(Double::doubleValue).sum()
                          + st.serverCpuMs())));
      t.row(row.toArray());
    }
    return t;
  }

  private static Table stages(TpcSummary s) {
    List<String> columns = new ArrayList<>(List.of("Query"));
    s.modes.forEach(m -> columns.add(m.label()));
    Table t =
        Table.of(
            "Stage times of the median round (s, in the order the stages ran)",
            columns.toArray(String[]::new));
    for (String q : s.queries) {
      List<Object> row = new ArrayList<>(List.of(q));
      s.modes.forEach(m -> row.add(String.join(" + ", s.get(q, m).stagesOfMedianRound())));
      t.row(row.toArray());
    }
    return t;
  }

  private static Table servers(TpcSummary s) {
    Table t =
        Table.of(
            "Sluice's servers during each query",
            "Query",
            "Peak direct memory",
            "Peak push memory",
            "Peak heap",
            "Server GC (ms)",
            "Server CPU (s)",
            "Flushed to disk",
            "Push rejections");
    for (String q : s.queries) {
      QueryStats st = s.get(q, Mode.SLUICE);
      t.row(
          q,
          bytes(st.serverPeakDirectBytes()),
          bytes(st.serverPeakPushBytes()),
          bytes(st.serverPeakHeapBytes()),
          Math.round(st.serverGcMs()),
          seconds(st.serverCpuMs()),
          bytes(st.serverFlushedBytes()),
          st.pushRejections());
    }
    return t;
  }

  /** The servers' CPU by group of threads ({@code sluice_server_cpu_seconds_total}). */
  private static Table serverThreads(TpcSummary s) {
    List<String> columns = new ArrayList<>(List.of("Query"));
    columns.addAll(MetricsPoller.THREAD_GROUPS);
    columns.add("all");
    Table t = Table.of("The servers' CPU by their threads (s)", columns.toArray(String[]::new));
    Map<String, Double> totals = new LinkedHashMap<>();
    for (String q : s.queries) {
      QueryStats st = s.get(q, Mode.SLUICE);
      List<Object> row = new ArrayList<>(List.of(q));
      double all = 0;
      for (String g : MetricsPoller.THREAD_GROUPS) {
        double ms = st.serverThreadCpuMs().getOrDefault(g, 0.0);
        all += ms;
        totals.merge(g, ms, Double::sum);
        row.add(seconds(ms));
      }
      row.add(seconds(all));
      t.row(row.toArray());
    }
    List<Object> row = new ArrayList<>(List.of("all queries"));
    MetricsPoller.THREAD_GROUPS.forEach(g -> row.add(seconds(totals.getOrDefault(g, 0.0))));
    row.add(seconds(totals.values().stream().mapToDouble(Double::doubleValue).sum()));
    return t.row(row.toArray());
  }

  /**
   * Where the Spark JVM's CPU went in the query slowest against the built-in shuffle, in each mode
   * (--profile): Java samples by package and by method on top of the stack, the innermost Sluice
   * methods, and threads in native code. None without profiles of every mode.
   */
  private static List<Table> profiles(TpcSummary s) {
    String q = s.compares() ? s.worstQuery() : "";
    Map<Mode, Map<String, Object>> byMode = s.profiles.get(q);
    if (byMode == null || !byMode.keySet().containsAll(s.modes)) {
      return List.of();
    }
    Table recordings =
        Table.of(
            "Profile of `"
                + q
                + "` ("
                + ratio(s.ratio(q))
                + "), the query slowest against the built-in shuffle: a flight recording of each"
                + " mode's Spark JVM in the last round",
            "Mode",
            "Recording",
            "Java samples");
    s.modes.forEach(
        m ->
            recordings.row(
                m.label(),
                "`" + byMode.get(m).get("recording") + "`",
                Figures.num(byMode.get(m), "samples")));
    String of = "Profile of `" + q + "`";
    List<Table> tables = new ArrayList<>(List.of(recordings));
    tables.add(
        shares(of + ", by package on top of the stack", "Package", s.modes, byMode, "packages"));
    tables.add(
        shares(of + ", by method on top of the stack", "Method", s.modes, byMode, "topFrames"));
    if (byMode.containsKey(Mode.SLUICE)) {
      tables.add(
          shares(
              of + ", sluice, by the innermost Sluice method",
              "Method",
              List.of(Mode.SLUICE),
              byMode,
              "sluiceFrames"));
    }
    int rows =
        s.modes.stream()
            .mapToInt(m -> Figures.list(byMode.get(m), "nativeCalls").size())
            .max()
            .orElse(0);
    if (rows > 0) {
      Table t =
          Table.of(
              of + ", threads in native code by thread and method (samples)",
              s.modes.stream().map(Mode::label).toArray(String[]::new));
      for (int i = 0; i < Math.min(rows, 6); i++) {
        List<Object> row = new ArrayList<>();
        for (Mode m : s.modes) {
          List<Map<String, Object>> c = Figures.list(byMode.get(m), "nativeCalls");
          row.add(
              i < c.size()
                  ? "`" + c.get(i).get("name") + "` " + Figures.num(c.get(i), "samples")
                  : "");
        }
        t.row(row.toArray());
      }
      tables.add(t);
    }
    return tables;
  }

  /** Rows of names with each mode's share of its samples, in the order of the first mode's. */
  private static Table shares(
      String title,
      String what,
      List<Mode> modes,
      Map<Mode, Map<String, Object>> byMode,
      String list) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (Mode m : modes) {
      Figures.list(byMode.get(m), list).forEach(c -> names.add(String.valueOf(c.get("name"))));
    }
    List<String> columns = new ArrayList<>(List.of(what));
    modes.forEach(m -> columns.add(m.label()));
    Table t = Table.of(title, columns.toArray(String[]::new));
    for (String name : names) {
      List<Object> row = new ArrayList<>(List.of("`" + name + "`"));
      for (Mode m : modes) {
        long total = Figures.num(byMode.get(m), "samples");
        long n =
            Figures.list(byMode.get(m), list).stream()
                .filter(c -> name.equals(c.get("name")))
                .mapToLong(c -> Figures.num(c, "samples"))
                .findFirst()
                .orElse(-1);
        row.add(
            n < 0
                ? ""
                : String.format(Locale.ROOT, "%.1f%%", total == 0 ? 0.0 : 100.0 * n / total));
      }
      t.row(row.toArray());
    }
    return t;
  }

  /** What the job noted about a query in a mode (AQE's skew splits, failures alike). */
  private static Table notes(TpcSummary s) {
    Table t = Table.of("Notes", "Query", "Mode", "Note");
    for (String q : s.queries) {
      for (Mode m : s.modes) {
        QueryStats st = s.get(q, m);
        if (!st.notes().isEmpty()) {
          t.row(q, m.label(), String.join("; ", st.notes()));
        }
      }
    }
    return t;
  }

  private static String perGib(double cpuMs, double gib) {
    return gib > 0 ? String.format(Locale.ROOT, "%.1f", cpuMs / 1000 / gib) : "n/a";
  }

  private static String perMode(TpcSummary s, String q, Function<QueryStats, String> cell) {
    return String.join(" / ", s.modes.stream().map(m -> cell.apply(s.get(q, m))).toList());
  }

  private static List<RunRecord> runs(Map<String, Object> results) {
    return Figures.list(results, "runs").stream().map(RunRecord::of).toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Map<?, ?> ? (Map<String, Object>) v : Map.of();
  }
}
