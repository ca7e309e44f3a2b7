package io.sluice.benchmark.fault;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.SparkInstall;
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
    Map<String, String> o = new LinkedHashMap<>();
    Flags flags = new Flags(args, USAGE);
    while (flags.hasNext()) {
      flags.named(flags.next(), OPTIONS, o);
    }
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
    String body =
        report(reference, outcomes, replicas, scenarios, rounds, job, onBed ? linkRate : null);
    System.out.println(body);
    String markdown = o.getOrDefault("markdown", "docs/benchmarks/fault.md");
    if (!markdown.equals("-")) {
      String section = onBed ? "fault-net" : "fault";
      BenchmarkReport.writeSection(
          home.resolve(markdown),
          section,
          onBed
              ? "Fault benchmark on a network test bed: a server cut off or on a slow link, with "
                  + "one and two copies"
              : "Fault benchmark: a server killed or frozen mid-map and mid-reduce, with one and "
                  + "two copies",
          o.getOrDefault("command", "bin/bench-fault.sh"),
          body);
      System.out.println("Wrote the '" + section + "' section of " + markdown);
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

  private static String report(
      FaultJobRunner.Outcome reference,
      List<FaultJobRunner.Outcome> outcomes,
      List<Integer> replicas,
      List<FaultBenchmarkJob.Scenario> scenarios,
      int rounds,
      FaultJobRunner job,
      String linkRate) {
    StringBuilder b = new StringBuilder();
    double mib = job.maps() * job.records() * 100.0 / (1 << 20);
    String setting =
        linkRate == null
            ? "Three shuffle servers and a coordinator started with the `bin/` scripts "
                + "(`buffer.capacity` 512 MiB, heap 512 MiB each). "
            : "Three shuffle servers and a coordinator started with the `bin/` scripts "
                + "(`buffer.capacity` 512 MiB, heap 512 MiB each), each on a host of its own: a "
                + "network namespace with its own address on a test bed (`bin/netbed.sh`), joined "
                + "to the machine by a bridge; Spark runs on the machine's side, so every byte "
                + "pushed or read crosses a server's link, which is capped at "
                + linkRate
                + " (tbf, both ways) in every case, the undisturbed one included. The built-in "
                + "shuffle's reference run crosses no link (its executors are in the one Spark "
                + "JVM): the column over it shows what the links cost as well. ";
    boolean signalled = scenarios.stream().anyMatch(s -> s.hasMoment() && !s.cuts());
    String faults =
        !signalled
            ? ""
            : "A kill is `SIGKILL` of the second server from Spark's listener, after a quarter of the "
                + "map tasks ended (mid-map) or after the first reduce task ended (mid-reduce); a "
                + "freeze is `SIGSTOP` at the same moments (the process keeps its sockets open and "
                + "answers nothing, as in a long pause or on a hung disk, until the run ends; clients "
                + "give it up after `transport.liveness.timeout`, 8 s). A killed or frozen server is "
                + "started again (same port, empty) before the next run. ";
    if (linkRate != null) {
      faults +=
          "A cut drops every packet to and from the second server's host (nftables) from Spark's "
              + "listener, after a quarter of the map tasks ended (mid-map) or after the first "
              + "reduce task ended (mid-reduce), until the run ends, so that no reset tells "
              + "anyone: clients give it up after `transport.liveness.timeout`, 8 s, as a frozen "
              + "server; healed after the run, the server rejoins as it was. A slow server's link "
              + "is capped at "
              + tenth(linkRate)
              + ", a tenth of the others', for the whole run. ";
    }
    b.append(
        String.format(
            Locale.ROOT,
            "One job: %d map tasks of %,d records (a long key and a "
                + "92-byte value, about %,.0f MiB in all) shuffled into %d partitions whose reduce "
                + "tasks sum every record; `%s`, Kryo, each run a fresh `SparkSubmit` JVM with the "
                + "shaded client jar. %s%sOne undisturbed warm-up run with each copy count, then "
                + "%d rounds, cases interleaved; medians, ranges in brackets. Job time is measured "
                + "inside the driver, from the job's start until the context stopped; CPU is the "
                + "Spark JVM's (driver and executors), not the servers'.%n%n",
            job.maps(),
            job.records(),
            mib,
            job.reduces(),
            job.master(),
            setting,
            faults,
            rounds));
    b.append(
        String.format(
            Locale.ROOT,
            "Built-in shuffle, same job, same invocation: %,.1f s, " + "%,.1f CPU-s (%s).%n%n",
            reference.wallMs() / 1000,
            reference.cpuMs() / 1000,
            reference.exit() == 0 ? "the reference answer" : "FAILED, exit " + reference.exit()));
    b.append(
        "| Copies | Case | Job time | / undisturbed | / built-in | Spark CPU-s per GiB "
            + "| Map stage submissions | All stage submissions | Failed tasks (fetch failures) "
            + "| Answer = built-in |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    Map<Integer, Double> undisturbed = new LinkedHashMap<>();
    List<String> targets = new ArrayList<>();
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
        b.append(
            String.format(
                Locale.ROOT,
                "| %d | %s | %.1f s (%.1f-%.1f) | %.2fx | %.2fx | "
                    + "%.1f | %s | %s | %s | %s |%n",
                r,
                label(scenario),
                time.median() / 1000,
                time.min() / 1000,
                time.max() / 1000,
                ratio,
                time.median() / reference.wallMs(),
                cpu.median() / 1000 / (mib / 1024),
                counts(runs, FaultJobRunner.Outcome::mapStageSubmissions),
                counts(runs, FaultJobRunner.Outcome::stageSubmissions),
                counts(runs, x -> x.failedTasks())
                    + " ("
                    + counts(runs, x -> x.fetchFailures())
                    + ")",
                right ? "yes, every run" : "**NO**"));
        if (scenario != FaultBenchmarkJob.Scenario.NONE) {
          targets.add(target(r, scenario, ratio, runs, right));
        }
      }
    }
    if (undisturbed.containsKey(1) && undisturbed.containsKey(2)) {
      double cost = undisturbed.get(2) / undisturbed.get(1);
      targets.add(
          String.format(
              Locale.ROOT,
              "- Replication costs at most 1.2x the unreplicated " + "job: %s, %.2fx.",
              cost <= 1.2 ? "**met**" : "**missed**",
              cost));
    }
    b.append(servers(outcomes, replicas, scenarios, mib, signalled));
    b.append(
        "\nCounts list every run's value. *Map stage submissions* 1 means the map stage ran "
            + "once; 2 means Spark ran it again after a fetch failure. The three servers share this "
            + "machine's cores with Spark: with two copies every primary also forwards each block "
            + "to its replica, so here replication costs more than where servers have cores of "
            + "their own"
            + (signalled
                ? "; once one is killed its CPU goes to the job, so a kill can make a run shorter. A "
                    + "run that follows a killed run meets that server freshly started (a cold JVM)."
                : ". A cut server keeps running: healed, it answers the next run warm, as it was.")
            + "\n\n### Targets\n\n");
    targets.forEach(t -> b.append(t).append('\n'));
    return b.toString();
  }

  /**
   * What the servers did in each case: their CPU per GiB the job shuffled, beside the Spark JVM's,
   * what they took, forwarded and wrote, and the pushes they refused for want of memory.
   */
  private static String servers(
      List<FaultJobRunner.Outcome> outcomes,
      List<Integer> replicas,
      List<FaultBenchmarkJob.Scenario> scenarios,
      double mib,
      boolean signalled) {
    StringBuilder b = new StringBuilder();
    b.append(
        "\nThe servers in the same runs, from their `/metrics` before and after each run "
            + (signalled
                ? "(summed over the servers that answered both times: a killed server's own "
                    + "figures are lost with it). "
                : "(a cut server's after it was healed). ")
            + "CPU-s per GiB are per GiB the job shuffled, as the Spark JVM's above.\n\n");
    b.append(
        "| Copies | Case | Servers CPU-s per GiB | Taken / shuffled | Forwarded / shuffled "
            + "| Flushed / taken | NO_BUFFER answers |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|\n");
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
        b.append(
            String.format(
                Locale.ROOT,
                "| %d | %s | %.1f (%.1f-%.1f) | %.2f | %.2f | %.2f " + "| %s |%n",
                r,
                label(scenario),
                cpu.median() / 1000 / (mib / 1024),
                cpu.min() / 1000 / (mib / 1024),
                cpu.max() / 1000 / (mib / 1024),
                series(runs, x -> x.servers().pushedBytes()).median() / bytes,
                series(runs, x -> x.servers().replicatedBytes()).median() / bytes,
                series(
                        runs,
                        x -> x.servers().flushedBytes() / Math.max(1, x.servers().pushedBytes()))
                    .median(),
                counts(runs, x -> (int) x.servers().noBufferAnswers())));
      }
    }
    return b.toString();
  }

  private static String target(
      int replicas,
      FaultBenchmarkJob.Scenario scenario,
      double ratio,
      List<FaultJobRunner.Outcome> runs,
      boolean right) {
    int maxSubmissions =
        runs.stream().mapToInt(FaultJobRunner.Outcome::mapStageSubmissions).max().orElse(0);
    // A slow server's link is capped by the benchmark before the run, not struck within it.
    boolean killed =
        scenario == FaultBenchmarkJob.Scenario.SLOW
            || runs.stream().allMatch(FaultJobRunner.Outcome::killed);
    if (replicas >= 2) {
      boolean met = ratio <= 1.3 && maxSubmissions == 1 && right && killed;
      return String.format(
          Locale.ROOT,
          "- %d copies, %s: at most 1.3x and no stage re-run: "
              + "%s, %.2fx, map stage submitted at most %d time(s).",
          replicas,
          label(scenario),
          met ? "**met**" : "**missed**",
          ratio,
          maxSubmissions);
    }
    boolean met = ratio <= 2.0 && maxSubmissions <= 2 && right && killed;
    return String.format(
        Locale.ROOT,
        "- 1 copy, %s: at most 2x and one re-run: %s, %.2fx, "
            + "map stage submitted at most %d time(s).",
        label(scenario),
        met ? "**met**" : "**missed**",
        ratio,
        maxSubmissions);
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
