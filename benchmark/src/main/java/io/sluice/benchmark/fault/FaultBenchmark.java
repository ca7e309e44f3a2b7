package io.sluice.benchmark.fault;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.LinkRate;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.SparkInstall;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.fixtures.NetBed;
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
import java.util.function.ToIntFunction;

/**
 * The fault benchmark: one Spark job through three shuffle servers, undisturbed and with one server
 * killed (SIGKILL) or frozen (SIGSTOP) during the map stage and during the reduce stage, with one
 * and with two copies of every partition, over several interleaved rounds; the built-in shuffle's
 * time on the same job in the same invocation for reference. Each killed or frozen server is
 * started again (a frozen one killed first) before the next run. Reports each case as a ratio to
 * the undisturbed run with the same copies, Spark's stage submissions and failed tasks, and whether
 * every answer equals the built-in shuffle's; rewrites the 'fault' section of
 * docs/benchmarks/fault.md.
 *
 * <p>The network's faults ({@code cut-map}, {@code cut-reduce}, {@code slow}) need the servers on
 * hosts of their own: the coordinator and the servers then run on a network test bed ({@link
 * NetBed}), every server's link capped at {@code --link-rate}, for every case of the invocation,
 * the undisturbed one included. A cut drops every packet of the victim's host from the same moments
 * as a kill, until the run ends; a slow run caps the victim's link at a tenth of the others' for
 * the whole run. The report then goes to the 'fault-net' section.
 */
public final class FaultBenchmark {
  static final Flags FLAGS =
      new Flags("Usage: bin/bench-fault.sh [flags]")
          .option("rounds", "N", "3", "rounds of every case")
          .option("replicas", "LIST", "1,2", "copies per partition to measure")
          .option(
              "cases",
              "LIST",
              "none,map,reduce,freeze-map,freeze-reduce",
              "the cases: none (undisturbed), map and reduce (a kill mid-map, mid-reduce),"
                  + " freeze-map and freeze-reduce (SIGSTOP), cut-map and cut-reduce (the link"
                  + " cut), slow (the link at a tenth of the others'); cut-map, cut-reduce and slow"
                  + " put the servers on a network test bed (root) for every case of the run")
          .option("link-rate", "RATE", "1gbit", "every server's link on the test bed")
          .option("maps", "N", "32", "map tasks")
          .option("reduces", "N", "16", "reduce partitions")
          .option("records", "N", "250000", "records per map task, 100 bytes each")
          .option(
              "master",
              "URL",
              "local[2,4]",
              "the Spark master (tasks may fail and retry, as on a" + " cluster)")
          .option("driver-memory", "SIZE", "3g", "the driver's heap")
          .option("output", "DIR", "benchmark/target/fault", "results and logs")
          .option(
              "markdown",
              "FILE|-",
              "docs/benchmarks/fault.md",
              "the file whose section 'fault', or 'fault-net' on the test bed, is rewritten")
          .option("home", "DIR", ".", "the Sluice checkout (set by bin/bench-fault.sh)")
          .option(
              "command",
              "TEXT",
              "bin/bench-fault.sh",
              "the command line to record (set by bin/bench-fault.sh)");

  /** The server killed: the second of three. */
  private static final int VICTIM = 1;

  /** The servers of every run; a partition has at most this many copies. */
  private static final int SERVERS = 3;

  /** The victim's host on the test bed. */
  private static final String VICTIM_HOST = "s" + VICTIM;

  private static final List<String> BED_HOSTS = List.of("coord", "s0", "s1", "s2");

  private FaultBenchmark() {}

  public static void main(String[] args) throws Exception {
    Flags.Values o = FLAGS.parseOrExit(args, v -> v);
    Path home = o.path("home").toAbsolutePath().normalize();
    int rounds = o.positive("rounds");
    List<Integer> replicas = o.positiveList("replicas", SERVERS);
    List<FaultBenchmarkJob.Scenario> scenarios = new ArrayList<>();
    for (String c : o.list("cases")) {
      try {
        scenarios.add(FaultBenchmarkJob.Scenario.parse(c));
      } catch (IllegalArgumentException e) {
        throw o.error("--cases: unknown case '" + c + "'");
      }
    }
    if (!scenarios.contains(FaultBenchmarkJob.Scenario.NONE)) {
      throw o.error("--cases must include none: the other cases are reported as ratios to it");
    }
    LinkRate linkRate = o.as("link-rate", LinkRate::parse);
    Path out = home.resolve(o.text("output"));
    Files.createDirectories(out.resolve("logs"));
    Path results = out.resolve("results.jsonl");
    Files.deleteIfExists(results);
    FaultJobRunner job =
        new FaultJobRunner(
            new SparkInstall(home),
            o.text("master"),
            o.text("driver-memory"),
            o.positive("maps"),
            o.positive("reduces"),
            o.positiveLong("records"),
            out,
            results,
            List.of());

    List<FaultJobRunner.Outcome> outcomes = new ArrayList<>();
    boolean onBed = scenarios.stream().anyMatch(FaultBenchmarkJob.Scenario::needsBed);
    if (onBed) {
      Optional<String> unavailable = NetBed.unavailableReason(home);
      if (unavailable.isPresent()) {
        throw new IOException(
            "--cases cut-map, cut-reduce and slow need a network test bed: " + unavailable.get());
      }
    }
    FaultJobRunner.Outcome reference =
        job.run("builtin", 0, FaultBenchmarkJob.Scenario.NONE, 0, null, List.of(), Map.of());
    NetBed bed = onBed ? NetBed.up(home, "sfnet", 94, BED_HOSTS) : null;
    try (NetBed closedLast = bed;
        ProcessCluster cluster =
            onBed(
                    ProcessCluster.withScripts(
                            home, SERVERS, new ProcessCluster.ServerSizing("512m", "128m", "512m"))
                        .in(out.resolve("cluster")),
                    bed)
                .start()) {
      if (bed != null) {
        for (int i = 0; i < SERVERS; i++) {
          bed.cap("s" + i, linkRate.toString());
        }
      }
      MetricsPoller servers =
          MetricsPoller.at(cluster.httpAddresses(), ServerFigures.KEYS, Duration.ofSeconds(1));
      // Every copy count warms up: with two copies the servers run code (forwarding, the peer
      // client) that the first runs would otherwise pay the JIT compiler for.
      for (int r : replicas) {
        System.out.println("== warm-up, " + r + " cop" + (r == 1 ? "y" : "ies"));
        job.run("warmup", 0, FaultBenchmarkJob.Scenario.NONE, r, cluster, List.of(), Map.of());
      }
      for (int round = 1; round <= rounds; round++) {
        for (int r : replicas) {
          for (FaultBenchmarkJob.Scenario scenario : scenarios) {
            List<String> victim = victim(scenario, cluster, bed, home);
            if (scenario == FaultBenchmarkJob.Scenario.SLOW) {
              bed.cap(VICTIM_HOST, linkRate.tenth().toString());
            }
            List<MetricsPoller.Sample> before = ServerFigures.scrape(servers);
            FaultJobRunner.Outcome run =
                job.run("sluice", round, scenario, r, cluster, victim, Map.of());
            if (scenario == FaultBenchmarkJob.Scenario.SLOW) {
              bed.cap(VICTIM_HOST, linkRate.toString());
            } else if (scenario.cuts()) {
              // Healed, the server has gone on running all along: it rejoins as it is.
              bed.heal(VICTIM_HOST);
              cluster.awaitLive(SERVERS);
            }
            ServerFigures figures = ServerFigures.between(before, ServerFigures.scrape(servers));
            System.out.printf(
                Locale.ROOT,
                "  Servers: %.1f CPU-s, %.0f MiB taken, %.0f NO_BUFFER " + "answers%n",
                figures.cpuMs() / 1000,
                figures.pushedBytes() / (1 << 20),
                figures.noBufferAnswers());
            outcomes.add(run.withServers(figures));
            if (scenario.hasMoment() && !scenario.cuts()) {
              if (scenario.freezes()) {
                // SIGKILL ends a stopped process too; the start script clears its pid file.
                cluster.kill(VICTIM);
              }
              cluster.start(VICTIM);
            }
          }
        }
      }
    }
    String section = onBed ? "fault-net" : "fault";
    BenchRecord record =
        record(
            section,
            o.text("command"),
            reference,
            outcomes,
            replicas,
            scenarios,
            rounds,
            job,
            onBed ? linkRate : null);
    BenchmarkReport.publish(record, o.pathOrNone("markdown", home));
    boolean allRight =
        outcomes.stream().allMatch(x -> x.answer().equals(reference.answer()) && x.exit() == 0);
    System.exit(allRight ? 0 : 1);
  }

  private static ProcessCluster.Builder onBed(ProcessCluster.Builder cluster, NetBed bed) {
    return bed == null ? cluster : cluster.on(bed);
  }

  /** The job's flags that name what it strikes at the scenario's moment. */
  private static List<String> victim(
      FaultBenchmarkJob.Scenario scenario, ProcessCluster cluster, NetBed bed, Path home) {
    if (!scenario.hasMoment()) {
      return List.of();
    }
    if (scenario.cuts()) {
      return List.of(
          "--netbed",
          home.resolve("bin/netbed.sh").toString(),
          "--bed",
          bed.name(),
          "--cut-host",
          VICTIM_HOST);
    }
    return List.of("--kill-pid", String.valueOf(cluster.pid(VICTIM)));
  }

  private static BenchRecord record(
      String section,
      String command,
      FaultJobRunner.Outcome reference,
      List<FaultJobRunner.Outcome> outcomes,
      List<Integer> replicas,
      List<FaultBenchmarkJob.Scenario> scenarios,
      int rounds,
      FaultJobRunner job,
      LinkRate linkRate) {
    double mib = job.maps() * job.records() * 100.0 / (1 << 20);
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        "Job",
        String.format(
            Locale.ROOT,
            "%d map tasks of %,d records (about %,.0f MiB) into %d partitions; `%s`, Kryo",
            job.maps(),
            job.records(),
            mib,
            job.reduces(),
            job.master()));
    settings.put("Rounds", rounds + " after a warm-up run with each copy count, cases interleaved");
    if (linkRate != null) {
      settings.put("Servers' links", linkRate + "; a slow server's " + linkRate.tenth());
    }
    settings.put(
        "Built-in shuffle, same job",
        String.format(
            Locale.ROOT,
            "%,.1f s, %,.1f CPU-s (%s)",
            reference.wallMs() / 1000,
            reference.cpuMs() / 1000,
            reference.exit() == 0 ? "the reference answer" : "FAILED, exit " + reference.exit()));
    Table jobs =
        Table.of(
            "",
            "Copies",
            "Case",
            "Job time",
            "/ undisturbed",
            "/ built-in",
            "Spark CPU-s per GiB",
            "Map stage submissions",
            "All stage submissions",
            "Failed tasks (fetch failures)",
            "Answer = built-in");
    Map<Integer, Double> undisturbed = new LinkedHashMap<>();
    List<Check> checks = new ArrayList<>();
    for (int r : replicas) {
      for (FaultBenchmarkJob.Scenario scenario : scenarios.stream().sorted().toList()) {
        List<FaultJobRunner.Outcome> runs =
            outcomes.stream().filter(x -> x.replicas() == r && x.scenario() == scenario).toList();
        Series time = series(runs, FaultJobRunner.Outcome::wallMs);
        Series cpu = series(runs, FaultJobRunner.Outcome::cpuMs);
        if (scenario == FaultBenchmarkJob.Scenario.NONE) {
          undisturbed.put(r, time.median());
        }
        double ratio = time.median() / undisturbed.get(r);
        boolean right =
            runs.stream().allMatch(x -> x.exit() == 0 && x.answer().equals(reference.answer()));
        jobs.row(
            r,
            label(scenario),
            String.format(
                Locale.ROOT,
                "%.1f s (%.1f-%.1f)",
                time.median() / 1000,
                time.min() / 1000,
                time.max() / 1000),
            String.format(Locale.ROOT, "%.2fx", ratio),
            String.format(Locale.ROOT, "%.2fx", time.median() / reference.wallMs()),
            String.format(Locale.ROOT, "%.1f", cpu.median() / 1000 / (mib / 1024)),
            counts(runs, FaultJobRunner.Outcome::mapStageSubmissions),
            counts(runs, FaultJobRunner.Outcome::stageSubmissions),
            counts(runs, FaultJobRunner.Outcome::failedTasks)
                + " ("
                + counts(runs, FaultJobRunner.Outcome::fetchFailures)
                + ")",
            right ? "yes, every run" : "**NO**");
        if (scenario != FaultBenchmarkJob.Scenario.NONE) {
          checks.add(target(r, scenario, ratio, runs, right));
        }
      }
    }
    if (undisturbed.containsKey(1) && undisturbed.containsKey(2)) {
      double cost = undisturbed.get(2) / undisturbed.get(1);
      checks.add(
          new Check(
              "Replication costs at most 1.2x the unreplicated job",
              String.format(Locale.ROOT, "%.2fx", cost),
              cost <= 1.2));
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("builtin", reference);
    figures.put("runs", outcomes);
    return BenchmarkReport.record(
        section,
        linkRate != null
            ? "Fault benchmark on a network test bed: a server cut off or on a slow link, with one"
                + " and two copies"
            : "Fault benchmark: a server killed or frozen mid-map and mid-reduce, with one and two"
                + " copies",
        command,
        settings,
        List.of(jobs, servers(outcomes, replicas, scenarios, mib)),
        checks,
        figures);
  }

  /**
   * What the servers did in each case: their CPU per GiB the job shuffled, beside the Spark JVM's,
   * what they took, forwarded and wrote, and the pushes they refused for want of memory.
   */
  private static Table servers(
      List<FaultJobRunner.Outcome> outcomes,
      List<Integer> replicas,
      List<FaultBenchmarkJob.Scenario> scenarios,
      double mib) {
    Table t =
        Table.of(
            "The servers in the same runs",
            "Copies",
            "Case",
            "Servers CPU-s per GiB",
            "Taken / shuffled",
            "Forwarded / shuffled",
            "Flushed / taken",
            "NO_BUFFER answers");
    double bytes = mib * (1 << 20);
    for (int r : replicas) {
      for (FaultBenchmarkJob.Scenario scenario : scenarios.stream().sorted().toList()) {
        List<FaultJobRunner.Outcome> runs =
            outcomes.stream()
                .filter(x -> x.replicas() == r && x.scenario() == scenario && x.servers() != null)
                .toList();
        if (runs.isEmpty()) {
          continue;
        }
        Series cpu = series(runs, x -> x.servers().cpuMs());
        t.row(
            r,
            label(scenario),
            String.format(
                Locale.ROOT,
                "%.1f (%.1f-%.1f)",
                cpu.median() / 1000 / (mib / 1024),
                cpu.min() / 1000 / (mib / 1024),
                cpu.max() / 1000 / (mib / 1024)),
            String.format(
                Locale.ROOT, "%.2f", series(runs, x -> x.servers().pushedBytes()).median() / bytes),
            String.format(
                Locale.ROOT,
                "%.2f",
                series(runs, x -> x.servers().replicatedBytes()).median() / bytes),
            String.format(
                Locale.ROOT,
                "%.2f",
                series(
                        runs,
                        x -> x.servers().flushedBytes() / Math.max(1, x.servers().pushedBytes()))
                    .median()),
            counts(runs, x -> (int) x.servers().noBufferAnswers()));
      }
    }
    return t;
  }

  private static Check target(
      int replicas,
      FaultBenchmarkJob.Scenario scenario,
      double ratio,
      List<FaultJobRunner.Outcome> runs,
      boolean right) {
    int maxSubmissions =
        runs.stream().mapToInt(FaultJobRunner.Outcome::mapStageSubmissions).max().orElse(0);
    // A slow server's link is capped by the benchmark before the run, not struck within it.
    boolean struck =
        scenario == FaultBenchmarkJob.Scenario.SLOW
            || runs.stream().allMatch(FaultJobRunner.Outcome::killed);
    String measured =
        String.format(
            Locale.ROOT, "%.2fx, map stage submitted at most %d time(s)", ratio, maxSubmissions);
    if (replicas >= 2) {
      return new Check(
          replicas + " copies, " + label(scenario) + ": at most 1.3x and no stage re-run",
          measured,
          ratio <= 1.3 && maxSubmissions == 1 && right && struck);
    }
    return new Check(
        "1 copy, " + label(scenario) + ": at most 2x and one re-run",
        measured,
        ratio <= 2.0 && maxSubmissions <= 2 && right && struck);
  }

  private static String label(FaultBenchmarkJob.Scenario scenario) {
    return switch (scenario) {
      case NONE -> "undisturbed";
      case MAP -> "kill mid-map";
      case REDUCE -> "kill mid-reduce";
      case FREEZE_MAP -> "freeze mid-map";
      case FREEZE_REDUCE -> "freeze mid-reduce";
      case CUT_MAP -> "link cut mid-map";
      case CUT_REDUCE -> "link cut mid-reduce";
      case SLOW -> "link at a tenth";
    };
  }

  private static Series series(
      List<FaultJobRunner.Outcome> runs, ToDoubleFunction<FaultJobRunner.Outcome> f) {
    Series s = new Series();
    runs.stream().filter(x -> x.exit() == 0).forEach(x -> s.add(f.applyAsDouble(x)));
    return s;
  }

  private static String counts(
      List<FaultJobRunner.Outcome> runs, ToIntFunction<FaultJobRunner.Outcome> f) {
    List<String> values = new ArrayList<>();
    runs.forEach(x -> values.add(String.valueOf(f.applyAsInt(x))));
    return String.join(", ", values);
  }
}
