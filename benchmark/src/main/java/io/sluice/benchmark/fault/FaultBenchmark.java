package io.sluice.benchmark.fault;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.SparkInstall;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Renderer;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
  static final String USAGE =
      String.join(
          "\n",
          "Usage: bin/bench-fault.sh [flags]",
          "  --rounds N             rounds of every case (default 3)",
          "  --replicas LIST        copies per partition to measure (default 1,2)",
          "  --cases LIST           of none,map,reduce,freeze-map,freeze-reduce,cut-map,",
          "                         cut-reduce,slow: undisturbed, kill mid-map, mid-reduce, freeze",
          "                         (SIGSTOP) mid-map, mid-reduce, link cut mid-map, mid-reduce,",
          "                         link at a tenth of the others' (default",
          "                         none,map,reduce,freeze-map,freeze-reduce); cut-map,",
          "                         cut-reduce and slow put the servers on a network test bed",
          "                         (root) for every case of the run",
          "  --link-rate RATE       every server's link on the test bed (default 1gbit)",
          "  --maps N               map tasks (default 32)",
          "  --reduces N            reduce partitions (default 16)",
          "  --records N            records per map task, 100 bytes each (default 250000)",
          "  --master URL           default local[2,4] (tasks may fail and retry, as on a cluster)",
          "  --driver-memory SIZE   default 3g",
          "  --output DIR           results and logs (default benchmark/target/fault)",
          "  --markdown FILE|-      section 'fault', or 'fault-net' on the test bed, rewritten",
          "                         (default docs/benchmarks/fault.md)",
          "  --home DIR             the Sluice checkout (set by bin/bench-fault.sh)",
          "  --command TEXT         the command line to record (set by bin/bench-fault.sh)");
  private static final List<String> OPTIONS =
      List.of(
          "rounds",
          "replicas",
          "cases",
          "link-rate",
          "maps",
          "reduces",
          "records",
          "master",
          "driver-memory",
          "output",
          "markdown",
          "home",
          "command");

  /** The server killed: the second of three. */
  private static final int VICTIM = 1;

  /** The victim's host on the test bed. */
  private static final String VICTIM_HOST = "s" + VICTIM;

  private static final List<String> BED_HOSTS = List.of("coord", "s0", "s1", "s2");

  private FaultBenchmark() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = Flags.parseOrExit(args, USAGE, a -> Flags.values(a, USAGE, OPTIONS));
    Path home = Path.of(o.getOrDefault("home", ".")).toAbsolutePath().normalize();
    int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
    List<Integer> replicas = new ArrayList<>();
    for (String r : o.getOrDefault("replicas", "1,2").split(",")) {
      replicas.add(Integer.parseInt(r.trim()));
    }
    List<FaultBenchmarkJob.Scenario> scenarios = new ArrayList<>();
    for (String c :
        o.getOrDefault("cases", "none,map,reduce,freeze-map,freeze-reduce").split(",")) {
      try {
        scenarios.add(FaultBenchmarkJob.Scenario.parse(c));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--cases takes none, map, reduce, freeze-map, freeze-reduce, cut-map, cut-reduce and "
                + "slow, not "
                + c);
      }
    }
    if (!scenarios.contains(FaultBenchmarkJob.Scenario.NONE)) {
      throw new IllegalArgumentException(
          "--cases must include none: the other cases are " + "reported as ratios to it");
    }
    Path out = home.resolve(o.getOrDefault("output", "benchmark/target/fault"));
    Files.createDirectories(out.resolve("logs"));
    Path results = out.resolve("results.jsonl");
    Files.deleteIfExists(results);
    FaultJobRunner job =
        new FaultJobRunner(
            new SparkInstall(home),
            o.getOrDefault("master", "local[2,4]"),
            o.getOrDefault("driver-memory", "3g"),
            Integer.parseInt(o.getOrDefault("maps", "32")),
            Integer.parseInt(o.getOrDefault("reduces", "16")),
            Long.parseLong(o.getOrDefault("records", "250000")),
            out,
            results,
            List.of());

    List<FaultJobRunner.Outcome> outcomes = new ArrayList<>();
    boolean onBed = scenarios.stream().anyMatch(FaultBenchmarkJob.Scenario::needsBed);
    String linkRate = o.getOrDefault("link-rate", "1gbit");
    String slowRate = tenth(linkRate);
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
                            home, 3, new ProcessCluster.ServerSizing("512m", "128m", "512m"))
                        .in(out.resolve("cluster")),
                    bed)
                .start()) {
      if (bed != null) {
        for (int i = 0; i < 3; i++) {
          bed.cap("s" + i, linkRate);
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
              bed.cap(VICTIM_HOST, slowRate);
            }
            List<MetricsPoller.Sample> before = ServerFigures.scrape(servers);
            FaultJobRunner.Outcome run =
                job.run("sluice", round, scenario, r, cluster, victim, Map.of());
            if (scenario == FaultBenchmarkJob.Scenario.SLOW) {
              bed.cap(VICTIM_HOST, linkRate);
            } else if (scenario.cuts()) {
              // Healed, the server has gone on running all along: it rejoins as it is.
              bed.heal(VICTIM_HOST);
              cluster.awaitLive(3);
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
            o.getOrDefault("command", "bin/bench-fault.sh"),
            reference,
            outcomes,
            replicas,
            scenarios,
            rounds,
            job,
            onBed ? linkRate : null);
    System.out.println(Renderer.markdown(record));
    String markdown = o.getOrDefault("markdown", "docs/benchmarks/fault.md");
    if (!markdown.equals("-")) {
      BenchmarkReport.write(home.resolve(markdown), record);
      System.out.println("Wrote the '" + section + "' section of " + markdown + " and its record");
    }
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

  /** A tenth of a rate in tc's notation (1gbit: 100mbit; 5kbit: 500bit). */
  static String tenth(String rate) {
    Matcher m = Pattern.compile("(\\d+)(k|m|g)bit").matcher(rate.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--link-rate takes a rate such as 500mbit or 1gbit, not " + rate);
    }
    long bits =
        Long.parseLong(m.group(1))
            * switch (m.group(2)) {
              case "k" -> 1_000L;
              case "m" -> 1_000_000L;
              default -> 1_000_000_000L;
            };
    // Every unit is a multiple of ten bits: the tenth is exact.
    long tenth = bits / 10;
    long[] sizes = {1_000_000_000L, 1_000_000L, 1_000L};
    String[] units = {"gbit", "mbit", "kbit"};
    for (int i = 0; i < sizes.length; i++) {
      if (tenth % sizes[i] == 0) {
        return tenth / sizes[i] + units[i];
      }
    }
    return tenth + "bit";
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
      String linkRate) {
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
      settings.put("Servers' links", linkRate + "; a slow server's " + tenth(linkRate));
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
