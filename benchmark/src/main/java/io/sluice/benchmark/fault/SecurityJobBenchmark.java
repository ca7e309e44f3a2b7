package io.sluice.benchmark.fault;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.SparkInstall;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.testcluster.ProcessCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What security costs a Spark job: the fault benchmark's job, undisturbed, through three servers
 * started with the {@code bin/} scripts, plain, with authentication, with authentication and blocks
 * encrypted with Spark's I/O key, and with authentication over TLS; interleaved rounds, each run on
 * a freshly started cluster of its mode; ratios to the plain runs of the same invocation. Writes
 * the {@code security-job} section of {@code docs/benchmarks/security-job.md}.
 */
public final class SecurityJobBenchmark {
  private static final Flags FLAGS =
      new Flags("Usage: bin/bench-security-job.sh [flags]")
          .option("rounds", "N", "3", "rounds of every mode")
          .option("maps", "N", "32", "map tasks")
          .option("reduces", "N", "16", "reduce partitions")
          .option("records", "N", "250000", "records per map task, 100 bytes each")
          .option("master", "URL", "local[2]", "the Spark master")
          .option("output", "DIR", "benchmark/target/security-job", "results and logs")
          .option(
              "markdown",
              "FILE|-",
              "docs/benchmarks/security-job.md",
              "the file whose section 'security-job' is rewritten")
          .option("home", "DIR", ".", "the Sluice checkout (set by the script)")
          .option(
              "command",
              "TEXT",
              "bin/bench-security-job.sh",
              "the command line to record (set by the script)");

  enum Mode {
    PLAIN("plain"),
    AUTH("authentication"),
    AUTH_ENCRYPTED("authentication, blocks encrypted"),
    TLS_AUTH("authentication over TLS");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  private SecurityJobBenchmark() {}

  public static void main(String[] args) throws Exception {
    Flags.Values o = FLAGS.parseOrExit(args, v -> v);
    Path home = o.path("home").toAbsolutePath().normalize();
    int rounds = o.positive("rounds");
    Path out = home.resolve(o.text("output"));
    Files.createDirectories(out.resolve("logs"));
    Path results = out.resolve("results.jsonl");
    Files.deleteIfExists(results);
    FaultJobRunner job =
        new FaultJobRunner(
            new SparkInstall(home),
            o.text("master"),
            "3g",
            o.positive("maps"),
            o.positive("reduces"),
            o.positiveLong("records"),
            out,
            results,
            List.of());
    Settings settings = Settings.create(out);

    FaultJobRunner.Outcome reference =
        job.run("builtin", 0, FaultBenchmarkJob.Scenario.NONE, 0, null, List.of(), Map.of());
    Map<Mode, List<FaultJobRunner.Outcome>> outcomes = new EnumMap<>(Mode.class);
    for (int round = 0; round <= rounds; round++) {
      for (Mode mode : Mode.values()) {
        // Round 0 warms up each mode's path and is not counted.
        try (ProcessCluster cluster =
            ProcessCluster.withScripts(
                    home, 3, new ProcessCluster.ServerSizing("512m", "128m", "512m"))
                .in(out.resolve("cluster"))
                .daemonSettings(settings.daemons(mode))
                .start()) {
          FaultJobRunner.Outcome outcome =
              job.run(
                  mode.name().toLowerCase(Locale.ROOT),
                  round,
                  FaultBenchmarkJob.Scenario.NONE,
                  1,
                  cluster,
                  List.of(),
                  settings.spark(mode));
          if (round > 0) {
            outcomes.computeIfAbsent(mode, m -> new ArrayList<>()).add(outcome);
          }
        }
      }
    }
    settings.certificate.delete();
    BenchRecord record = record(reference, outcomes, rounds, job, o.text("command"));
    BenchmarkReport.publish(record, o.pathOrNone("markdown", home));
    boolean allRight =
        outcomes.values().stream()
            .flatMap(List::stream)
            .allMatch(x -> x.exit() == 0 && x.answer().equals(reference.answer()));
    System.exit(allRight ? 0 : 1);
  }

  /** The secret files and certificate of the secured modes, and each mode's settings. */
  private record Settings(Path clusterSecret, SelfSignedCertificate certificate) {
    static Settings create(Path dir) throws Exception {
      Path secret = dir.resolve("cluster.secret");
      Files.writeString(
          secret, "benchmark-cluster-secret-0123456789abcdef\n", StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
      return new Settings(secret, new SelfSignedCertificate("localhost"));
    }

    Map<String, String> daemons(Mode mode) {
      Map<String, String> s = new LinkedHashMap<>();
      if (mode != Mode.PLAIN) {
        s.put("auth.enabled", "true");
        s.put("auth.cluster.secret.file", clusterSecret.toString());
      }
      if (mode == Mode.TLS_AUTH) {
        s.putAll(tls(""));
        s.put("transport.tls.cert.chain", certificate.certificate().getPath());
        s.put("transport.tls.private.key", certificate.privateKey().getPath());
      }
      return s;
    }

    Map<String, String> spark(Mode mode) {
      Map<String, String> s = new LinkedHashMap<>();
      if (mode != Mode.PLAIN) {
        s.put("spark.sluice.auth.enabled", "true");
        s.put("spark.sluice.auth.cluster.secret.file", clusterSecret.toString());
      }
      if (mode == Mode.AUTH_ENCRYPTED) {
        s.put("spark.io.encryption.enabled", "true");
      }
      if (mode == Mode.TLS_AUTH) {
        s.putAll(tls("spark.sluice."));
        // The driver's endpoint is a TLS listener too.
        s.put("spark.sluice.transport.tls.cert.chain", certificate.certificate().getPath());
        s.put("spark.sluice.transport.tls.private.key", certificate.privateKey().getPath());
      }
      return s;
    }

    /**
     * TLS with the self-signed certificate as the trusted one. The daemons are addressed as
     * 127.0.0.1, which a certificate for localhost does not name, so host names are not checked
     * here; the check happens once per connection and does not change the figures.
     */
    private Map<String, String> tls(String prefix) {
      return Map.of(
          prefix + "transport.tls.enabled",
          "true",
          prefix + "transport.tls.trust.certs",
          certificate.certificate().getPath(),
          prefix + "transport.tls.verify.hostname",
          "false");
    }
  }

  private static BenchRecord record(
      FaultJobRunner.Outcome reference,
      Map<Mode, List<FaultJobRunner.Outcome>> outcomes,
      int rounds,
      FaultJobRunner job,
      String command) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        "Job",
        String.format(
            Locale.ROOT,
            "%d map tasks of %,d records (about %,.0f MiB) into %d partitions; `%s`, Kryo, one copy",
            job.maps(),
            job.records(),
            job.mib(),
            job.reduces(),
            job.master()));
    settings.put("Rounds", rounds + " after a warm-up run of every mode, modes interleaved");
    settings.put(
        "Built-in shuffle, same job",
        String.format(Locale.ROOT, "%,.1f s", reference.wallMs() / 1000));
    Table table =
        Table.of("", "Mode", "Job time", "/ plain", "Spark CPU-s", "/ plain", "Answer = built-in");
    double plainTime = Double.NaN;
    double plainCpu = Double.NaN;
    double authRatio = Double.NaN;
    for (Mode mode : Mode.values()) {
      List<FaultJobRunner.Outcome> runs = outcomes.getOrDefault(mode, List.of());
      Series time = new Series();
      Series cpu = new Series();
      runs.stream()
          .filter(x -> x.exit() == 0)
          .forEach(
              x -> {
                time.add(x.wallMs() / 1000);
                cpu.add(x.cpuMs() / 1000);
              });
      if (time.isEmpty()) {
        table.row(mode.label, "FAILED", "", "", "", "**NO**");
        continue;
      }
      if (mode == Mode.PLAIN) {
        plainTime = time.median();
        plainCpu = cpu.median();
      }
      if (mode == Mode.AUTH) {
        authRatio = time.median() / plainTime;
      }
      boolean right =
          runs.stream().allMatch(x -> x.exit() == 0 && x.answer().equals(reference.answer()));
      table.row(
          mode.label,
          time.describe("%.1f") + " s",
          String.format(Locale.ROOT, "%.2fx", time.median() / plainTime),
          cpu.describe("%.1f"),
          String.format(Locale.ROOT, "%.2fx", cpu.median() / plainCpu),
          right ? "yes, every run" : "**NO**");
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("builtin", reference);
    outcomes.forEach((mode, runs) -> figures.put(mode.name(), runs));
    return BenchmarkReport.record(
        "security-job",
        "Security: the cost of authentication, TLS and encrypted blocks on a Spark job",
        command,
        settings,
        List.of(table),
        List.of(
            new Check(
                "Authentication costs under 2% of the plain job's time",
                String.format(Locale.ROOT, "%.2fx", authRatio), authRatio < 1.02)),
        figures);
  }
}
