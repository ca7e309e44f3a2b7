package io.sluice.benchmark.transport;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.Series;
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
import java.util.HashMap;
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
  private static final String USAGE =
      "Usage: SecurityBenchmark [--seconds N] [--warmup N]"
          + " [--rounds N] [--connects N] [--probes] [--output FILE|-] [--command TEXT]\n"
          + "  --probes  also measure the cipher alone (CipherFloor), the floor of what TLS adds";
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
  private final PooledByteBufAllocator allocator =
      NettyTransports.pooledAllocator(Runtime.getRuntime().availableProcessors());
  private final Secret appSecret = Secret.random();
  private final SelfSignedCertificate cert;

  private SecurityBenchmark(int seconds, int warmup, int rounds, int connects) throws Exception {
    this.seconds = seconds;
    this.warmup = warmup;
    this.rounds = rounds;
    this.connects = connects;
    this.cert = new SelfSignedCertificate(HOST);
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    Flags flags = new Flags(args, USAGE);
    boolean probes = false;
    while (flags.hasNext()) {
      String flag = flags.next();
      if (flag.equals("--probes")) {
        probes = true;
      } else {
        flags.named(
            flag, List.of("seconds", "warmup", "rounds", "connects", "output", "command"), o);
      }
    }
    SecurityBenchmark benchmark =
        new SecurityBenchmark(
            Integer.parseInt(o.getOrDefault("seconds", "10")),
            Integer.parseInt(o.getOrDefault("warmup", "3")),
            Integer.parseInt(o.getOrDefault("rounds", "3")),
            Integer.parseInt(o.getOrDefault("connects", "200")));
    Map<Mode, Figures> figures = benchmark.run();
    CipherAlone cipher = null;
    if (probes) {
      CipherFloor floor =
          new CipherFloor(
              benchmark.cert, HOST, OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
      double cpu = floor.cpuSecondsPerGib();
      cipher = new CipherAlone(floor.cipherSuite(), cpu);
      System.out.printf(Locale.ROOT, "cipher alone (%s): %.2f CPU-s/GiB%n", cipher.suite(), cpu);
    }
    String body = benchmark.report(figures, cipher);
    System.out.println();
    System.out.println(body);
    String output = o.getOrDefault("output", "docs/benchmarks/security.md");
    if (!output.equals("-")) {
      BenchmarkReport.writeSection(
          Path.of(output),
          "security",
          "Security: the cost of authentication and TLS on the push path",
          o.getOrDefault("command", "bin/bench-security.sh"),
          body);
      System.out.println("Wrote the 'security' section of " + output);
    }
    benchmark.cert.delete();
    System.exit(0);
  }

  private Map<Mode, Figures> run() throws Exception {
    Map<Mode, Figures> figures = new EnumMap<>(Mode.class);
    for (Mode mode : Mode.values()) {
      figures.put(mode, new Figures());
    }
    for (int round = 1; round <= rounds; round++) {
      for (Mode mode : Mode.values()) {
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
  private String report(Map<Mode, Figures> figures, CipherAlone cipher) {
    Figures plain = figures.get(Mode.PLAIN);
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "One connection pushing 1 MiB bodies (16 in flight) to a "
                + "server in the same JVM over loopback, which drops them; %d s measured after %d s of "
                + "warm-up, then %d fresh connections opened and closed one after another. %d rounds, the "
                + "four modes interleaved in each; medians, ranges in brackets. CPU is the whole JVM's "
                + "(client and server) per GiB that reached the server. TLS uses %s with a self-signed "
                + "certificate; authentication is the application role (HMAC-SHA256 challenge-response, "
                + "two round trips when a connection opens).%n%n",
            seconds,
            warmup,
            connects,
            rounds,
            OpenSsl.isAvailable() ? "BoringSSL (netty-tcnative)" : "the JDK's TLS engine"));
    b.append("| Mode | Push MiB/s | / plain | CPU-s per GiB | / plain | Connect ms | / plain |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|\n");
    for (Mode mode : Mode.values()) {
      Figures f = figures.get(mode);
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %.3fx | %s | %.3fx | %s | %.2fx |%n",
              mode.label,
              f.mibPerSecond.describe("%,.0f"),
              f.mibPerSecond.median() / plain.mibPerSecond.median(),
              f.cpuPerGib.describe("%.2f"),
              f.cpuPerGib.median() / plain.cpuPerGib.median(),
              f.connectMillis.describe("%.2f"),
              f.connectMillis.median() / plain.connectMillis.median()));
    }
    double authCost =
        1 - figures.get(Mode.AUTH).mibPerSecond.median() / plain.mibPerSecond.median();
    double tlsRatio = plain.mibPerSecond.median() / figures.get(Mode.TLS).mibPerSecond.median();
    b.append(
        String.format(
            Locale.ROOT,
            "%nTargets: authentication costs under 2%% of push "
                + "throughput: **%s** (%.1f%%); TLS at most 1.5x: **%s** (%.2fx the plain time per "
                + "byte).%n",
            authCost < 0.02 ? "met" : "missed",
            100 * authCost,
            tlsRatio <= 1.5 ? "met" : "missed",
            tlsRatio));
    double plainCpu = plain.cpuPerGib.median();
    double tlsCpu = figures.get(Mode.TLS).cpuPerGib.median();
    if (cipher == null) {
      b.append(
          String.format(
              Locale.ROOT,
              "%nTLS adds %.2f CPU-s per GiB to the plain path's %.2f (both ends on this JVM's %d "
                  + "cores). What the cipher alone costs of that was not measured (`--probes`).%n",
              tlsCpu - plainCpu,
              plainCpu,
              Runtime.getRuntime().availableProcessors()));
      return b.toString();
    }
    String cipherSuite = cipher.suite();
    double floorCpu = cipher.cpuSecondsPerGib();
    b.append(
        String.format(
            Locale.ROOT,
            "%nWhere TLS's time goes: both ends run in this JVM on "
                + "%d cores, and the plain path is already CPU-bound at %.2f CPU-s per GiB (copies and "
                + "system calls). TLS adds %.2f CPU-s per GiB. The cipher alone (%s, a client and a "
                + "server engine sealing and opening 16 KiB records in memory on one thread, measured "
                + "after the rounds above) costs %.2f CPU-s per GiB, so %.0f%% of what TLS adds is the "
                + "encryption and decryption themselves and the rest (%.2f CPU-s per GiB) is the "
                + "transport's handling of records. With both ends sharing these cores, the least CPU per "
                + "byte that any TLS with this cipher could cost is the plain path's plus the cipher's, "
                + "%.2fx the plain CPU per byte. On a network link the link bounds both: TLS "
                + "here moves %,.0f MiB/s, %s a 25 Gbit/s link's %,.0f MiB/s.%n",
            Runtime.getRuntime().availableProcessors(),
            plainCpu,
            tlsCpu - plainCpu,
            cipherSuite,
            floorCpu,
            100 * Math.min(1, floorCpu / (tlsCpu - plainCpu)),
            Math.max(0, tlsCpu - plainCpu - floorCpu),
            (plainCpu + floorCpu) / plainCpu,
            figures.get(Mode.TLS).mibPerSecond.median(),
            figures.get(Mode.TLS).mibPerSecond.median() >= 25e9 / 8 / (1 << 20) ? "above" : "below",
            25e9 / 8 / (1 << 20)));
    return b.toString();
  }
}
