package io.sluice.benchmark.coordinator;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.LatencyStats;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Table;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.coordinator.CoordinatorAddress;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.CoordinatorServer;
import io.sluice.coordinator.assignment.ShuffleAssigner;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.registry.ServerRegistry;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How fast the coordinator assigns and how much CPU heartbeats cost, with 5,000 registered servers:
 *
 * <ul>
 *   <li>assignment latency (p50, p99, max) and rate of the assigner itself, for 1,000 and 10,000
 *       partitions with one and two copies, and with the candidate list rebuilt before every
 *       request (a server changed state just before);
 *   <li>the same for 1,000 partitions through the network, client to coordinator and back;
 *   <li>CPU of heartbeat processing: the registry alone (CPU time of the calling thread), and the
 *       whole coordinator (CPU time of its threads) while 5,000 servers beat at 1 Hz, each on its
 *       own connection.
 * </ul>
 *
 * <p>Prints the figures and rewrites the {@code coordinator} section of {@code
 * docs/benchmarks/coordinator.md}. Run it with {@code bin/bench-coordinator.sh}.
 */
public final class AssignmentBenchmark {
  private static final int SERVERS = 5_000;
  private static final int SERVERS_PER_HOST = 5;
  private static final String HOST = "127.0.0.1";

  private final Path output;
  private final String command;
  private final int heartbeatSeconds;
  private final List<String> rows = new ArrayList<>();

  private AssignmentBenchmark(Path output, String command, int heartbeatSeconds) {
    this.output = output;
    this.command = command;
    this.heartbeatSeconds = heartbeatSeconds;
  }

  private static final Flags FLAGS =
      new Flags("Usage: AssignmentBenchmark [flags]")
          .option("seconds", "N", "10", "seconds of heartbeats from every server")
          .option(
              "output",
              "PATH",
              "docs/benchmarks/coordinator.md",
              "Markdown file whose 'coordinator' section is rewritten; '-' prints only")
          .option("command", "TEXT", "bin/bench-coordinator.sh", "the command line to state");

  public static void main(String[] args) throws Exception {
    FLAGS
        .parseOrExit(
            args,
            v ->
                new AssignmentBenchmark(
                    v.pathOrNone("output"), v.text("command"), v.positive("seconds")))
        .run();
  }

  private void run() throws Exception {
    SyntheticCluster cluster = new SyntheticCluster(SERVERS, SERVERS_PER_HOST);
    ServerRegistry registry =
        new ServerRegistry(Clock.systemUTC(), Duration.ofSeconds(30), new ExclusionList());
    for (int i = 0; i < SERVERS; i++) {
      registry.heartbeat(cluster.next(i));
    }
    ShuffleAssigner assigner =
        new ShuffleAssigner(
            registry,
            CoordinatorOptions.MAX_SERVERS_PER_SHUFFLE.parse(
                CoordinatorOptions.MAX_SERVERS_PER_SHUFFLE.defaultValueText()),
            CoordinatorOptions.LOAD_HALF_PARTITIONS.parse(
                CoordinatorOptions.LOAD_HALF_PARTITIONS.defaultValueText()),
            CoordinatorOptions.PENDING_EXPIRY
                .parse(CoordinatorOptions.PENDING_EXPIRY.defaultValueText())
                .toMillis(),
            CoordinatorOptions.REFRESH_INTERVAL
                .parse(CoordinatorOptions.REFRESH_INTERVAL.defaultValueText())
                .toMillis());

    Table latency =
        Table.of(
            "Assignment latency",
            "Assignment",
            "Requests",
            "p50 (µs)",
            "p99 (µs)",
            "max (µs)",
            "Requests/s");
    // Every request shape first, so that the JIT has compiled all paths before any timing.
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 2_000; i++) {
        assigner.assign(1_000, 1 + i % 2, List.of(), Set.of());
      }
      for (int i = 0; i < 200; i++) {
        assigner.assign(10_000, 1 + i % 2, List.of(), Set.of());
      }
    }
    double loadAverage = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    LatencyStats thousand = assignInProcess(assigner, null, 1_000, 1, 5_000);
    latencyRow(latency, "1,000 partitions, 1 copy", thousand);
    latencyRow(
        latency, "1,000 partitions, 2 copies", assignInProcess(assigner, null, 1_000, 2, 5_000));
    latencyRow(
        latency, "10,000 partitions, 1 copy", assignInProcess(assigner, null, 10_000, 1, 1_000));
    latencyRow(
        latency, "10,000 partitions, 2 copies", assignInProcess(assigner, null, 10_000, 2, 1_000));
    latencyRow(
        latency,
        "1,000 partitions, 1 copy, candidate list rebuilt for each request",
        assignInProcess(assigner, () -> flipOneServer(registry, cluster), 1_000, 1, 2_000));

    double registryCpuPerBeatNanos = registryHeartbeatCpu(registry, cluster);
    NetworkFigures network = overTheNetwork(cluster);
    latencyRow(
        latency,
        "1,000 partitions, 1 copy, over loopback (client to coordinator and back)",
        network.assignments);

    double registryShare = registryCpuPerBeatNanos * SERVERS / 1e7;
    double total = 100.0 * network.coordinator.cpuNanos() / network.wallNanos;
    double user = 100.0 * network.coordinator.userNanos() / network.wallNanos;
    Table cpu =
        Table.of("Heartbeats of 5,000 servers at 1 Hz", "Measure", "CPU")
            .row(
                String.format(
                    Locale.ROOT,
                    "Registry update alone (%.1f µs per heartbeat)",
                    registryCpuPerBeatNanos / 1e3),
                String.format(Locale.ROOT, "%.2f%% of one core", registryShare))
            .row(
                String.format(
                    Locale.ROOT,
                    "Whole coordinator: receive, decode, validate, update, answer on %,d"
                        + " connections (%,d heartbeats in %d s, %d failed)",
                    SERVERS,
                    network.heartbeats,
                    heartbeatSeconds,
                    network.failures),
                String.format(Locale.ROOT, "%.2f%% of one core", total))
            .row(
                "of which the coordinator's code and Netty (user time)",
                String.format(Locale.ROOT, "%.2f%% of one core", user))
            .row(
                "of which the kernel's network stack (system time)",
                String.format(Locale.ROOT, "%.2f%% of one core", total - user))
            .row(
                "JVM garbage collection during that run (all threads)",
                String.format(
                    Locale.ROOT,
                    "%.2f%% of wall time",
                    100.0 * network.gcMillis * 1e6 / network.wallNanos));

    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        "Cluster",
        String.format(
            Locale.ROOT,
            "%,d registered servers, five per host, random free push memory and partitions held;"
                + " default assignment settings",
            SERVERS));
    settings.put(
        "Load average at the start",
        String.format(
            Locale.ROOT,
            "%.1f on %d cores",
            loadAverage,
            Runtime.getRuntime().availableProcessors()));
    List<Check> checks =
        List.of(
            new Check(
                "p99 of assigning 1,000 partitions under 1 ms",
                LatencyStats.micros(thousand.p99Nanos()) + " µs",
                thousand.p99Nanos() < 1_000_000),
            new Check(
                "Heartbeats of 5,000 servers at 1 Hz: the coordinator's own code under 5% of a core",
                String.format(Locale.ROOT, "%.2f%%", user), user < 5),
            new Check(
                "The same with the kernel's socket work on 5,000 connections under 5% of a core",
                String.format(Locale.ROOT, "%.2f%%", total), total < 5));
    BenchRecord record =
        BenchmarkReport.record(
            "coordinator",
            "Coordinator: assignment latency and heartbeat CPU",
            command,
            settings,
            List.of(latency, cpu),
            checks,
            Map.of("assign1000x1", thousand, "overLoopback", network.assignments));
    BenchmarkReport.publish(record, output);
  }

  private static void latencyRow(Table table, String what, LatencyStats s) {
    table.row(
        what,
        String.format(Locale.ROOT, "%,d", s.count()),
        LatencyStats.micros(s.p50Nanos()),
        LatencyStats.micros(s.p99Nanos()),
        LatencyStats.micros(s.maxNanos()),
        String.format(Locale.ROOT, "%,.0f", s.perSecond()));
  }

  /** Runs {@code requests} assignments after as many warm-up ones; {@code before} runs untimed. */
  private static LatencyStats assignInProcess(
      ShuffleAssigner assigner, Runnable before, int partitions, int copies, int requests) {
    for (int i = 0; i < requests; i++) {
      if (before != null) {
        before.run();
      }
      assigner.assign(partitions, copies, List.of(), Set.of());
    }
    long[] nanos = new long[requests];
    long timed = 0;
    for (int i = 0; i < requests; i++) {
      if (before != null) {
        before.run();
      }
      long start = System.nanoTime();
      assigner.assign(partitions, copies, List.of(), Set.of());
      nanos[i] = System.nanoTime() - start;
      timed += nanos[i];
    }
    LatencyStats stats = LatencyStats.of(nanos, timed);
    System.out.printf(
        Locale.ROOT,
        "assign %,d partitions x %d: p50 %s µs, p99 %s µs%n",
        partitions,
        copies,
        LatencyStats.micros(stats.p50Nanos()),
        LatencyStats.micros(stats.p99Nanos()));
    return stats;
  }

  private int flipped;

  /** Changes one server's state, which invalidates the assigner's candidate list. */
  private void flipOneServer(ServerRegistry registry, SyntheticCluster cluster) {
    int i = flipped++ % SERVERS;
    ServerStatus s = cluster.next(i);
    registry.heartbeat(
        new ServerStatus(
            s.serverId(),
            s.host(),
            s.dataPort(),
            s.httpPort(),
            flipped % 2 == 0 ? ServerState.ACTIVE : ServerState.DECOMMISSIONING,
            s.version(),
            s.pushBufferUsed(),
            s.pushBufferCapacity(),
            s.readBufferUsed(),
            s.readBufferCapacity(),
            s.partitionsHeld(),
            s.disks(),
            s.tags(),
            s.timestampMillis()));
  }

  /** CPU nanoseconds the calling thread spends per registry heartbeat. */
  private static double registryHeartbeatCpu(ServerRegistry registry, SyntheticCluster cluster) {
    int rounds = 20;
    List<ServerStatus> beats = new ArrayList<>(SERVERS * rounds);
    for (int r = 0; r < 2 * rounds; r++) {
      for (int i = 0; i < SERVERS; i++) {
        beats.add(cluster.next(i));
      }
    }
    // The first half warms up.
    for (int k = 0; k < SERVERS * rounds; k++) {
      registry.heartbeat(beats.get(k));
    }
    long start = ThreadCpu.currentThread();
    for (int k = SERVERS * rounds; k < beats.size(); k++) {
      registry.heartbeat(beats.get(k));
    }
    double perBeat = (double) (ThreadCpu.currentThread() - start) / (SERVERS * rounds);
    System.out.printf(Locale.ROOT, "registry heartbeat: %.2f µs CPU each%n", perBeat / 1e3);
    return perBeat;
  }

  private record NetworkFigures(
      LatencyStats assignments,
      long heartbeats,
      long failures,
      ThreadCpu.Usage coordinator,
      long wallNanos,
      long gcMillis) {}

  private NetworkFigures overTheNetwork(SyntheticCluster cluster) throws Exception {
    SluiceConf conf =
        SluiceConf.empty()
            .with(CoordinatorOptions.BIND_HOST, HOST)
            .with(CoordinatorOptions.PORT, "0")
            .with(CoordinatorOptions.HTTP_PORT, "-1")
            .with(TransportOptions.SERVER_THREADS, "1")
            // One connection per synthetic server and one for the assignments: a coordinator of
            // this many servers is configured for them.
            .with(TransportOptions.MAX_CONNECTIONS, String.valueOf(SERVERS + 16));
    SluiceConf clientConf = SluiceConf.empty().with(TransportOptions.CLIENT_THREADS, "1");
    ThreadCpu coordinatorThreads =
        new ThreadCpu(List.of("sluice-server", "sluice-accept", "sluice-coordinator"));
    try (CoordinatorServer coordinator = CoordinatorServer.start(conf);
        TransportClientFactory factory =
            new TransportContext(
                    new TransportConf(clientConf),
                    "assignment-benchmark",
                    PooledByteBufAllocator.DEFAULT)
                .createClientFactory();
        HeartbeatLoad load =
            new HeartbeatLoad(cluster, factory, HOST, coordinator.port(), SERVERS);
        CoordinatorClient client =
            new CoordinatorClient(
                factory,
                List.of(new CoordinatorAddress(HOST, coordinator.port())),
                Duration.ofSeconds(30))) {
      load.burst();
      System.out.printf(
          Locale.ROOT,
          "%,d servers registered over %,d connections%n",
          coordinator.servers().size(),
          SERVERS);
      client.registerApplication("benchmark-app", "bench");
      int requests = 2_000;
      for (int i = 0; i < requests; i++) {
        client.getAssignment("benchmark-app", i, 1_000, 1, List.of(), List.of());
      }
      long[] nanos = new long[requests];
      long start = System.nanoTime();
      for (int i = 0; i < requests; i++) {
        long t = System.nanoTime();
        client.getAssignment("benchmark-app", requests + i, 1_000, 1, List.of(), List.of());
        nanos[i] = System.nanoTime() - t;
      }
      LatencyStats assignments = LatencyStats.of(nanos, System.nanoTime() - start);
      System.out.printf(
          Locale.ROOT,
          "assign over loopback: p50 %s µs, p99 %s µs%n",
          LatencyStats.micros(assignments.p50Nanos()),
          LatencyStats.micros(assignments.p99Nanos()));

      load.run(2);
      Map<Long, ThreadCpu.Usage> before = coordinatorThreads.snapshot();
      long gcBefore = gcMillis();
      long wallStart = System.nanoTime();
      long sent = load.run(heartbeatSeconds);
      long wall = System.nanoTime() - wallStart;
      ThreadCpu.Usage cpu = ThreadCpu.between(before, coordinatorThreads.snapshot());
      long gc = gcMillis() - gcBefore;
      System.out.printf(
          Locale.ROOT,
          "heartbeats at 1 Hz: %,d in %.1f s, coordinator CPU %.2f%% "
              + "of one core (user %.2f%%)%n",
          sent,
          wall / 1e9,
          100.0 * cpu.cpuNanos() / wall,
          100.0 * cpu.userNanos() / wall);
      return new NetworkFigures(assignments, sent, load.failures(), cpu, wall, gc);
    }
  }

  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }
}
