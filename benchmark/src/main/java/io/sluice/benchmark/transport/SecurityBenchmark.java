package io.sluice.benchmark.transport;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.transport.NettyTransports;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import io.sluice.common.transport.TransportServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What security costs on the push path: bulk push throughput on one connection, the process's CPU
 * per GiB pushed (client and server share the JVM), and the time to open a connection, plain, with
 * authentication, with TLS, and with both, in interleaved rounds of one invocation; every figure is
 * also given as a ratio to the plain run. Run it with {@code bin/bench-security.sh}; writes the
 * {@code security} section of {@code docs/benchmarks/security.md}.
 */
public final class SecurityBenchmark {
  private static final Flags FLAGS =
      new Flags("Usage: bin/bench-security.sh [flags]")
          .option("seconds", "N", "10", "measured seconds per run")
          .option("warmup", "N", "3", "warm-up seconds before each measured run")
          .option("rounds", "N", "3", "repetitions of every mode, interleaved")
          .option("connects", "N", "200", "connections opened to time a connect")
          .option(
              "modes",
              "LIST",
              "plain,auth,tls,tls_auth",
              "the modes to run; plain, the others' reference, always runs; a subset's record"
                  + " replaces the whole section: add --output - to keep it")
          .toggle("probes", "also measure the cipher alone (CipherFloor), the floor of TLS's cost")
          .option(
              "output",
              "FILE|-",
              "docs/benchmarks/security.md",
              "the file whose 'security' section is rewritten; - prints only")
          .option("command", "TEXT", "bin/bench-security.sh", "the command line to record");

  /** The command line's values. */
  private record Settings(
      int seconds,
      int warmup,
      int rounds,
      int connects,
      Set<Mode> modes,
      boolean probes,
      Path output,
      String command) {}

  private static final String HOST = "localhost";

  /** The application the workloads push for. */
  private static final String APP = Payload.APP_ID;

  enum Mode {
    PLAIN("plain", false, false),
    AUTH("authentication", true, false),
    TLS("TLS", false, true),
    TLS_AUTH("TLS and authentication", true, true);

    final String label;
    final boolean auth;
    final boolean tls;

    Mode(String label, boolean auth, boolean tls) {
      this.label = label;
      this.auth = auth;
      this.tls = tls;
    }
  }

  /** One mode's figures over the rounds. */
  private static final class Figures {
    final Series mibPerSecond = new Series();
    final Series cpuPerGib = new Series();
    final Series connectMillis = new Series();
  }

  private final int seconds;
  private final int warmup;
  private final int rounds;
  private final int connects;
  private final Set<Mode> modes;
  private final PooledByteBufAllocator allocator =
      NettyTransports.pooledAllocator(Runtime.getRuntime().availableProcessors());
  private final Secret appSecret = Secret.random();
  private final SelfSignedCertificate cert;

  private SecurityBenchmark(int seconds, int warmup, int rounds, int connects, Set<Mode> modes)
      throws Exception {
    this.modes = modes;
    this.seconds = seconds;
    this.warmup = warmup;
    this.rounds = rounds;
    this.connects = connects;
    this.cert = new SelfSignedCertificate(HOST);
  }

  public static void main(String[] args) throws Exception {
    Settings o = FLAGS.parseOrExit(args, SecurityBenchmark::settings);
    SecurityBenchmark benchmark =
        new SecurityBenchmark(o.seconds(), o.warmup(), o.rounds(), o.connects(), o.modes());
    Map<Mode, Figures> figures = benchmark.run();
    CipherAlone cipher = null;
    if (o.probes()) {
      CipherFloor floor =
          new CipherFloor(
              benchmark.cert, HOST, OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
      double cpu = floor.cpuSecondsPerGib();
      cipher = new CipherAlone(floor.cipherSuite(), cpu);
      System.out.printf(Locale.ROOT, "cipher alone (%s): %.2f CPU-s/GiB%n", cipher.suite(), cpu);
    }
    BenchRecord record = benchmark.record(figures, cipher, o.command());
    BenchmarkReport.publish(record, o.output());
    benchmark.cert.delete();
    System.exit(0);
  }

  private static Settings settings(Flags.Values v) {
    Set<Mode> modes = EnumSet.of(Mode.PLAIN);
    for (String name : v.list("modes")) {
      try {
        modes.add(Mode.valueOf(name.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw v.error("--modes: unknown mode '" + name + "'");
      }
    }
    return new Settings(
        v.positive("seconds"),
        v.nonNegative("warmup"),
        v.positive("rounds"),
        v.positive("connects"),
        modes,
        v.given("probes"),
        v.pathOrNone("output"),
        v.text("command"));
  }

  private Map<Mode, Figures> run() throws Exception {
    Map<Mode, Figures> figures = new EnumMap<>(Mode.class);
    for (Mode mode : modes) {
      figures.put(mode, new Figures());
    }
    for (int round = 1; round <= rounds; round++) {
      for (Mode mode : modes) {
        measure(mode, figures.get(mode), round);
      }
    }
    return figures;
  }

  private void measure(Mode mode, Figures into, int round) throws Exception {
    TransportContext context = new TransportContext(conf(mode), "security-benchmark", allocator);
    SinkHandler sink = new SinkHandler();
    ServerAuth auth =
        mode.auth
            ? new ServerAuth(
                Set.of(AuthRole.APPLICATION), null, app -> app.equals(APP) ? appSecret : null)
            : ServerAuth.disabled();
    Credentials credentials =
        mode.auth ? Credentials.application(APP, appSecret) : Credentials.none();
    try (TransportServer server = context.createServer("127.0.0.1", 0, sink, auth);
        TransportClientFactory clients = context.createClientFactory(credentials)) {
      PushRun pushes = new PushRun(clients, sink, HOST, server.port());
      long cpuBefore = processCpuNanos();
      SinkHandler.Counts before = sink.counts();
      PushRun.Rate rate = pushes.run(1, () -> Workloads.bulk(allocator), warmup, seconds);
      long bytes = sink.counts().minus(before).bodyBytes();
      double cpuSeconds = (processCpuNanos() - cpuBefore) / 1e9;
      into.mibPerSecond.add(rate.bytesPerSecond() / (1 << 20));
      into.cpuPerGib.add(cpuSeconds / (bytes / (double) (1L << 30)));
      List<Double> millis = new ArrayList<>();
      for (int i = 0; i < connects; i++) {
        long start = System.nanoTime();
        TransportClient c = clients.createUnpooledClient(HOST, server.port());
        millis.add((System.nanoTime() - start) / 1e6);
        c.close();
      }
      millis.sort(Double::compare);
      into.connectMillis.add(millis.get(millis.size() / 2));
      System.out.printf(
          Locale.ROOT,
          "round %d  %-24s %,8.0f MiB/s  %.2f CPU-s/GiB  connect " + "%.2f ms%n",
          round,
          mode.label,
          rate.bytesPerSecond() / (1 << 20),
          into.cpuPerGib.last(),
          into.connectMillis.last());
    }
  }

  private TransportConf conf(Mode mode) {
    Map<String, String> raw = new HashMap<>();
    if (mode.tls) {
      raw.put(TransportOptions.TLS_ENABLED.key(), "true");
      raw.put(TransportOptions.TLS_CERT_CHAIN.key(), cert.certificate().getPath());
      raw.put(TransportOptions.TLS_PRIVATE_KEY.key(), cert.privateKey().getPath());
      raw.put(TransportOptions.TLS_TRUST_CERTS.key(), cert.certificate().getPath());
    }
    SluiceConf conf = ConfigLoader.fromMap(raw, List.of(new TransportOptions()));
    return new TransportConf(conf);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** What the cipher alone cost ({@link CipherFloor}), measured after the rounds. */
  private record CipherAlone(String suite, double cpuSecondsPerGib) {}

  /**
   * @param cipher null when not measured
   */
  private BenchRecord record(Map<Mode, Figures> figures, CipherAlone cipher, String command) {
    Figures plain = figures.get(Mode.PLAIN);
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        "Rounds",
        String.format(
            Locale.ROOT,
            "%d, the %s modes interleaved in each: %d s measured after %d s of warm-up, then %d"
                + " connections opened and closed",
            rounds,
            modes.size() == Mode.values().length ? "four" : String.valueOf(modes.size()),
            seconds,
            warmup,
            connects));
    settings.put(
        "TLS engine",
        OpenSsl.isAvailable() ? "BoringSSL (netty-tcnative)" : "the JDK's TLS engine");
    Table table =
        Table.of(
            "",
            "Mode",
            "Push MiB/s",
            "/ plain",
            "CPU-s per GiB",
            "/ plain",
            "Connect ms",
            "/ plain");
    Map<String, Object> raw = new LinkedHashMap<>();
    for (Mode mode : modes) {
      Figures f = figures.get(mode);
      table.row(
          mode.label,
          f.mibPerSecond.describe("%,.0f"),
          String.format(
              Locale.ROOT, "%.3fx", f.mibPerSecond.median() / plain.mibPerSecond.median()),
          f.cpuPerGib.describe("%.2f"),
          String.format(Locale.ROOT, "%.3fx", f.cpuPerGib.median() / plain.cpuPerGib.median()),
          f.connectMillis.describe("%.2f"),
          String.format(
              Locale.ROOT, "%.2fx", f.connectMillis.median() / plain.connectMillis.median()));
      raw.put(
          mode.name(),
          Map.of(
              "mibPerSecond", f.mibPerSecond.values(),
              "cpuPerGib", f.cpuPerGib.values(),
              "connectMillis", f.connectMillis.values()));
    }
    List<Table> tables = new ArrayList<>(List.of(table));
    List<Check> checks = new ArrayList<>();
    if (figures.containsKey(Mode.AUTH)) {
      double authCost =
          1 - figures.get(Mode.AUTH).mibPerSecond.median() / plain.mibPerSecond.median();
      checks.add(
          new Check(
              "Authentication costs under 2% of push throughput",
              String.format(Locale.ROOT, "%.1f%%", 100 * authCost), authCost < 0.02));
    }
    if (figures.containsKey(Mode.TLS)) {
      double tlsRatio = plain.mibPerSecond.median() / figures.get(Mode.TLS).mibPerSecond.median();
      checks.add(
          new Check(
              "TLS at most 1.5x the plain time per byte",
              String.format(Locale.ROOT, "%.2fx", tlsRatio),
              tlsRatio <= 1.5));
    }
    double plainCpu = plain.cpuPerGib.median();
    if (cipher != null && figures.containsKey(Mode.TLS)) {
      double tlsCpu = figures.get(Mode.TLS).cpuPerGib.median();
      raw.put("cipherAloneCpuPerGib", cipher.cpuSecondsPerGib());
      tables.add(
          Table.of("Where TLS's CPU goes", "Measure", "CPU-s per GiB")
              .row(
                  "Plain path (both ends on this JVM)",
                  String.format(Locale.ROOT, "%.2f", plainCpu))
              .row("Added by TLS", String.format(Locale.ROOT, "%.2f", tlsCpu - plainCpu))
              .row(
                  "The cipher alone (`CipherFloor`, " + cipher.suite() + ")",
                  String.format(Locale.ROOT, "%.2f", cipher.cpuSecondsPerGib()))
              .row(
                  "Added by TLS beyond the cipher",
                  String.format(
                      Locale.ROOT,
                      "%.2f",
                      Math.max(0, tlsCpu - plainCpu - cipher.cpuSecondsPerGib())))
              .row(
                  "Floor of TLS with this cipher, over plain",
                  String.format(
                      Locale.ROOT, "%.2fx", (plainCpu + cipher.cpuSecondsPerGib()) / plainCpu)));
    }
    return BenchmarkReport.record(
        "security",
        "Security: the cost of authentication and TLS on the push path",
        command,
        settings,
        tables,
        checks,
        raw);
  }
}
