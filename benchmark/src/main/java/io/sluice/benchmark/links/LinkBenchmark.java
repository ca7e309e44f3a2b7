package io.sluice.benchmark.links;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.LinkRate;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.SparkInstall;
import io.sluice.benchmark.fault.FaultBenchmarkJob;
import io.sluice.benchmark.fault.FaultJobRunner;
import io.sluice.benchmark.fault.ServerFigures;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.benchmark.tpc.TpcWorkload;
import io.sluice.fixtures.NetBed;
import io.sluice.fixtures.SparkStandalone;
import io.sluice.testcluster.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Speed on real links: the fault benchmark's RDD job, undisturbed, and SQL queries of the TPC
 * benchmark ({@link TpcWorkload}), each on a Spark standalone cluster whose two workers are hosts
 * of their own on a network test bed ({@code bin/netbed.sh}), beside a coordinator and three
 * shuffle servers on hosts of their own and the driver on another, with every host's link capped (1
 * and 10 Gbit/s by default). Rounds alternate Spark's built-in shuffle (whose executors then fetch
 * from each other across their links) and Sluice (whose executors push to and read from the servers
 * across theirs), each run a fresh application; reports the ratio of their median times at each
 * cap, the tasks' CPU and the servers' CPU per GiB shuffled, and whether every answer equals the
 * built-in shuffle's; rewrites the 'links' section of docs/benchmarks/links.md. Needs root (network
 * namespaces).
 */
public final class LinkBenchmark {
  static final Flags FLAGS =
      new Flags("Usage: bin/bench-links.sh [flags]")
          .option("rates", "LIST", "1gbit,10gbit", "link caps, in tc's notation")
          .option("rounds", "N", "3", "rounds of each shuffle at each cap")
          .option("replicas", "N", "1", "copies of every partition through Sluice")
          .option("maps", "N", "8", "map tasks")
          .option("reduces", "N", "8", "reduce partitions")
          .option("records", "N", "500000", "records per map task, 100 bytes each")
          .option(
              "jobs",
              "LIST",
              "rdd,sql",
              "rdd (the fault benchmark's job), sql (TPC queries), or both")
          .option(
              "sql-queries", "LIST", "aggregate,join", "the TPC benchmark's queries of the sql job")
          .option(
              "sql-scale",
              "SF|smoke",
              "1",
              "their scale factor; tables generated once, kept in benchmark/target/tpc-data")
          .option("output", "DIR", "benchmark/target/links", "results and logs")
          .option(
              "markdown",
              "FILE|-",
              "docs/benchmarks/links.md",
              "the file whose section 'links' is rewritten")
          .option("home", "DIR", ".", "the Sluice checkout (set by bin/bench-links.sh)")
          .option(
              "command",
              "TEXT",
              "bin/bench-links.sh",
              "the command line to record (set by bin/bench-links.sh)");
  private static final List<String> HOSTS =
      List.of("coord", "s0", "s1", "s2", "master", "w0", "w1", "drv");
  private static final List<String> WORKERS = List.of("w0", "w1");

  private LinkBenchmark() {}

  /** One run: its job, its cap, the shuffle it used and what it measured. */
  private record Run(String job, String rate, boolean sluice, Measured outcome) {}

  /** What a run of either job measured; servers only through Sluice. */
  private record Measured(
      int exit,
      double wallMs,
      double taskCpuMs,
      double shuffledMib,
      JsonNode answer,
      ServerFigures servers) {
    static Measured of(FaultJobRunner.Outcome o, double mib) {
      return new Measured(o.exit(), o.wallMs(), o.taskCpuMs(), mib, o.answer(), o.servers());
    }

    static Measured of(TpcWorkload.Outcome o) {
      return new Measured(
          o.exit(), o.wallMs(), o.taskCpuMs(), o.shuffleWriteBytes() / (1 << 20), o.answer(), null);
    }

    Measured withServers(ServerFigures figures) {
      return new Measured(exit, wallMs, taskCpuMs, shuffledMib, answer, figures);
    }
  }

  private static final String RDD = "rdd";
  private static final String SQL = "sql";

  public static void main(String[] args) throws Exception {
    Flags.Values o = FLAGS.parseOrExit(args);
    Path home = o.path("home").toAbsolutePath().normalize();
    List<String> rates = o.list("rates").stream().map(r -> rate(o, r)).toList();
    int rounds = o.positive("rounds");
    int replicas = o.positive("replicas");
    Path out = home.resolve(o.text("output"));
    Files.createDirectories(out.resolve("logs"));
    Path results = out.resolve("results.jsonl");
    Files.deleteIfExists(results);
    SparkInstall install = new SparkInstall(home);

    List<String> jobs = o.list("jobs");
    if (!List.of(RDD, SQL).containsAll(jobs)) {
      throw o.error("--jobs is '" + o.text("jobs") + "': give rdd, sql or rdd,sql");
    }
    List<Run> runs = new ArrayList<>();
    FaultJobRunner job;
    TpcWorkload sql = null;
    Optional<String> unavailable = NetBed.unavailableReason(home);
    if (unavailable.isPresent()) {
      throw new IOException(unavailable.get());
    }
    Path sqlLogs = out.resolve("logs").resolve("sql");
    Files.createDirectories(sqlLogs);
    try (NetBed bed = NetBed.up(home, "slink", 93, HOSTS)) {
      String master = "spark://" + bed.address("master") + ":" + SparkStandalone.MASTER_PORT;
      job =
          new FaultJobRunner(
              install,
              master,
              "1g",
              o.positive("maps"),
              o.positive("reduces"),
              o.positiveLong("records"),
              out,
              results,
              bed.launcher("drv"));
      if (jobs.contains(SQL)) {
        sql =
            new TpcWorkload(
                List.of(
                    "--home", home.toString(),
                    "--scale", o.text("sql-scale"),
                    "--queries", o.text("sql-queries"),
                    "--master", master,
                    "--driver-memory", "1g",
                    "--executor-memory", "768m",
                    "--output", out.resolve("sql").toString()));
        // Generated on this machine's loopback before the runs, not across capped links.
        sql.ensureTables(sqlLogs);
      }
      Map<String, String> cluster =
          Map.of(
              "spark.driver.host", bed.address("drv"),
              "spark.driver.bindAddress", bed.address("drv"),
              "spark.executor.cores", "1",
              "spark.cores.max", String.valueOf(WORKERS.size()),
              "spark.executor.memory", "768m");
      try (ProcessCluster sluice =
              ProcessCluster.withScripts(
                      home, 3, new ProcessCluster.ServerSizing("512m", "128m", "512m"))
                  .in(out.resolve("cluster"))
                  .on(bed)
                  .create();
          SparkStandalone spark =
              new SparkStandalone(
                  bed,
                  new SparkStandalone.Install(
                      install.java(),
                      install.sparkHome(),
                      install.line().equals("4") ? "2.13" : "2.12",
                      install.sparkJavaOptions()),
                  new SparkStandalone.Sizing("512m", 1, "1g"),
                  WORKERS,
                  out.resolve("spark"))) {
        sluice.start();
        MetricsPoller servers =
            MetricsPoller.at(sluice.httpAddresses(), ServerFigures.KEYS, Duration.ofSeconds(1));
        TpcWorkload queries = sql;
        JobRun runJob =
            (name, kind, round, through) ->
                kind.equals(RDD)
                    ? Measured.of(
                        job.run(
                            name,
                            round,
                            FaultBenchmarkJob.Scenario.NONE,
                            through == null ? 0 : replicas,
                            through,
                            List.of(),
                            cluster),
                        job.mib())
                    : Measured.of(
                        queries.run(
                            name + "-" + round,
                            through,
                            replicas,
                            cluster,
                            bed.launcher("drv"),
                            sqlLogs));
        for (String rate : rates) {
          bed.capAll(rate);
          System.out.println("== links capped at " + rate);
          for (String kind : jobs) {
            runJob.run("warmup-" + kind + "-builtin-" + rate, kind, 0, null);
            runJob.run("warmup-" + kind + "-sluice-" + rate, kind, 0, sluice);
            for (int round = 1; round <= rounds; round++) {
              runs.add(
                  new Run(
                      kind, rate, false, runJob.run(kind + "-builtin-" + rate, kind, round, null)));
              List<MetricsPoller.Sample> before = ServerFigures.scrape(servers);
              Measured through = runJob.run(kind + "-sluice-" + rate, kind, round, sluice);
              runs.add(
                  new Run(
                      kind,
                      rate,
                      true,
                      through.withServers(
                          ServerFigures.between(before, ServerFigures.scrape(servers)))));
            }
          }
        }
      }
    }
    BenchRecord record = record(o.text("command"), runs, jobs, rates, rounds, replicas, job, sql);
    BenchmarkReport.publish(record, o.pathOrNone("markdown", home));
    boolean allRight = runs.stream().allMatch(r -> r.outcome().exit() == 0) && answersAgree(runs);
    System.exit(allRight ? 0 : 1);
  }

  /** One run of a job, with the built-in shuffle ({@code through} null) or through Sluice. */
  @FunctionalInterface
  private interface JobRun {
    Measured run(String name, String job, int round, ProcessCluster through) throws Exception;
  }

  /**
   * Whether every run of each job that finished gave the same answer (failed runs are counted
   * apart).
   */
  private static boolean answersAgree(List<Run> runs) {
    for (String job : runs.stream().map(Run::job).distinct().toList()) {
      List<Measured> done =
          runs.stream()
              .filter(r -> r.job().equals(job))
              .map(Run::outcome)
              .filter(x -> x.exit() == 0)
              .toList();
      if (!done.stream().allMatch(x -> x.answer().equals(done.get(0).answer()))) {
        return false;
      }
    }
    return true;
  }

  private static BenchRecord record(
      String command,
      List<Run> runs,
      List<String> jobs,
      List<String> rates,
      int rounds,
      int replicas,
      FaultJobRunner job,
      TpcWorkload sql) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (jobs.contains(RDD)) {
      settings.put(
          "RDD job (`rdd`)",
          String.format(
              Locale.ROOT,
              "%d map tasks of %,d records (about %,.0f MiB) into %d partitions",
              job.maps(),
              job.records(),
              job.mib(),
              job.reduces()));
    }
    if (jobs.contains(SQL)) {
      settings.put(
          "SQL job (`sql`)",
          String.format(
              Locale.ROOT,
              "%s, about %,.0f MiB of shuffle writes (median of the built-in runs)",
              sql.describe(),
              shuffledMib(runs, SQL)));
    }
    settings.put("Copies", String.valueOf(replicas));
    settings.put("Rounds", rounds + " after a warm-up run of each shuffle per job and cap");
    settings.put(
        "Every answer equal to the built-in shuffle's", answersAgree(runs) ? "yes" : "**NO**");
    Table times =
        Table.of(
            "",
            "Job",
            "Link cap",
            "Built-in",
            "Sluice",
            "Sluice / built-in",
            "Task CPU-s per GiB, built-in",
            "Task CPU-s per GiB, Sluice",
            "Servers CPU-s per GiB",
            "Failed runs");
    List<Check> checks = new ArrayList<>();
    for (String kind : jobs) {
      double gib = shuffledMib(runs, kind) / 1024;
      for (String rate : rates) {
        List<Measured> builtin = outcomes(runs, kind, rate, false);
        List<Measured> sluice = outcomes(runs, kind, rate, true);
        Series builtinTime = series(builtin, Measured::wallMs);
        Series sluiceTime = series(sluice, Measured::wallMs);
        if (builtinTime.isEmpty() || sluiceTime.isEmpty()) {
          times.row(kind, rate, "no run succeeded", "", "", "", "", "", "");
          continue;
        }
        double ratio = sluiceTime.median() / builtinTime.median();
        long failed =
            runs.stream()
                .filter(
                    r -> r.job().equals(kind) && r.rate().equals(rate) && r.outcome().exit() != 0)
                .count();
        times.row(
            kind,
            rate,
            secondsWithRange(builtinTime),
            secondsWithRange(sluiceTime),
            String.format(Locale.ROOT, "%.2fx", ratio),
            perGib(series(builtin, Measured::taskCpuMs).median(), gib),
            perGib(series(sluice, Measured::taskCpuMs).median(), gib),
            perGib(
                series(
                        sluice.stream().filter(x -> x.servers() != null).toList(),
                        x -> x.servers().cpuMs())
                    .median(),
                gib),
            failed);
        checks.add(
            new Check(
                kind.toUpperCase(Locale.ROOT)
                    + " job, links capped at "
                    + rate
                    + ": Sluice at most 1.0x the built-in shuffle",
                String.format(Locale.ROOT, "%.2fx", ratio),
                ratio <= 1.0));
      }
    }
    Table crossing =
        Table.of(
            "What crosses each executor's link",
            "Job",
            "Built-in, MiB each way at once",
            "Sluice, MiB out in the map stages and in in the reduce stages",
            "Link cap",
            "Transfer per executor, built-in",
            "Transfer per executor, Sluice");
    int executors = WORKERS.size();
    for (String kind : jobs) {
      double mib = shuffledMib(runs, kind);
      // Each executor wrote 1/E of the map output; with the built-in shuffle its reduce tasks
      // fetch the (E-1)/E of their input that other executors wrote while those fetch as much from
      // it, both directions at once; through Sluice all it wrote goes out in the map stage and all
      // its reduce tasks read comes back in the reduce stage, one direction after the other.
      double builtinEachWay = mib / executors * (executors - 1) / executors;
      double sluiceEachWay = mib / executors;
      for (String rate : rates) {
        double bitsPerSecond = LinkRate.parse(rate).bitsPerSecond();
        crossing.row(
            kind,
            String.format(Locale.ROOT, "%,.0f", builtinEachWay),
            String.format(Locale.ROOT, "%,.0f", sluiceEachWay),
            rate,
            bitsPerSecond > 0
                ? String.format(
                    Locale.ROOT, "%.1f s", builtinEachWay * 8 * (1 << 20) / bitsPerSecond)
                : "n/a",
            bitsPerSecond > 0
                ? String.format(
                    Locale.ROOT, "%.1f s", 2 * sluiceEachWay * 8 * (1 << 20) / bitsPerSecond)
                : "n/a");
      }
    }
    return BenchmarkReport.record(
        "links",
        "Links benchmark: Sluice and the built-in shuffle across capped links",
        command,
        settings,
        List.of(times, crossing),
        checks,
        Map.of("runs", runs));
  }

  private static String secondsWithRange(Series ms) {
    return String.format(
        Locale.ROOT, "%.1f s (%.1f-%.1f)", ms.median() / 1000, ms.min() / 1000, ms.max() / 1000);
  }

  private static String perGib(double ms, double gib) {
    return String.format(Locale.ROOT, "%.1f", ms / 1000 / gib);
  }

  /** A job's shuffled MiB: the median over its built-in runs that finished. */
  private static double shuffledMib(List<Run> runs, String job) {
    Series s = new Series();
    runs.stream()
        .filter(r -> r.job().equals(job) && !r.sluice() && r.outcome().exit() == 0)
        .forEach(r -> s.add(r.outcome().shuffledMib()));
    return s.isEmpty() ? 0 : s.median();
  }

  /** A link cap of {@code --rates}, in tc's notation as the test bed takes it. */
  private static String rate(Flags.Values o, String text) {
    try {
      return LinkRate.parse(text).toString();
    } catch (IllegalArgumentException e) {
      throw o.error("--rates: " + e.getMessage());
    }
  }

  private static List<Measured> outcomes(List<Run> runs, String job, String rate, boolean sluice) {
    return runs.stream()
        .filter(r -> r.job().equals(job) && r.rate().equals(rate) && r.sluice() == sluice)
        .map(Run::outcome)
        .toList();
  }

  private static Series series(List<Measured> runs, ToDoubleFunction<Measured> f) {
    Series s = new Series();
    runs.stream().filter(x -> x.exit() == 0).forEach(x -> s.add(f.applyAsDouble(x)));
    return s;
  }
}
