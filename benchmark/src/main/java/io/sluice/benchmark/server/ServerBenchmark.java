package io.sluice.benchmark.server;

import static io.sluice.benchmark.Format.mib;

import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.DaemonThreads;
import io.sluice.benchmark.DiskWriteTest;
import io.sluice.benchmark.Iperf3;
import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.Series;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;

/**
 * Shuffle server benchmark: a real server started with {@code bin/start-server.sh} in a JVM of its
 * own, clients in this JVM pushing over loopback with 1, 4 and 16 clients while the server flushes
 * to disk, then reading everything back and verifying it; the machine's limits (iperf3 over
 * loopback, dd to the data disk) measured in the same invocation; and the memory contract under 32x
 * oversubscription. Prints a table and rewrites the {@code server} section of {@code
 * docs/benchmarks/server.md}. Run it with {@code bin/bench-server.sh}.
 */
public final class ServerBenchmark {
  private static final String APP_ID = "server-benchmark";
  private static final long THROUGHPUT_READ_CAPACITY = 256L << 20;
  private static final long CONTRACT_READ_CAPACITY = 64L << 20;
  private static final int PAYLOAD_BYTES = (32 << 20) + RandomPayload.MAX_BLOCK_BYTES;
  private static final int PROFILE_ROWS = 8;

  private final ServerBenchSettings settings;
  private final Iperf3 iperf;
  private final Path workDir;
  private final ServerBenchResults results = new ServerBenchResults();
  private int nextShuffleId;

  private ServerBenchmark(ServerBenchSettings settings, Iperf3 iperf) {
    this.settings = settings;
    this.iperf = iperf;
    this.workDir = settings.workDir().toAbsolutePath();
  }

  public static void main(String[] args) throws Exception {
    ServerBenchSettings settings =
        ServerBenchSettings.FLAGS.parseOrExit(args, ServerBenchSettings::of);
    new ServerBenchmark(settings, Iperf3.requiredOrExit(settings.iperf())).run();
  }

  private void run() throws Exception {
    Files.createDirectories(workDir);
    cleanWorkDir();
    if (iperf != null) {
      results.iperfVersion = iperf.version();
    }
    // ShuffleRun gives each client a pool of its own from this context: one connection, one
    // event loop.
    TransportContext context = ShuffleRun.context("server-benchmark", 1);
    ScheduledExecutorService retryTimer =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("bench-push-retry"));
    try (TransportClientFactory connections = context.createClientFactory();
        RandomPayload payload = new RandomPayload(PAYLOAD_BYTES, 42)) {
      if (settings.throughput()) {
        throughputRuns(connections, context, payload, retryTimer);
      }
      if (settings.contract()) {
        contractRun(connections, context, payload, retryTimer);
      }
    } finally {
      retryTimer.shutdownNow();
    }
    BenchRecord record = new ServerBenchReport(settings, results).record();
    BenchmarkReport.publish(record, settings.output());
    boolean contractFailed = results.contract != null && !ServerBenchReport.contractHeld(results);
    boolean lost = results.runs.values().stream().flatMap(List::stream).anyMatch(r -> !r.intact());
    if (contractFailed || lost) {
      System.err.println(
          "FAILED: "
              + (lost ? "a throughput run lost or corrupted blocks; " : "")
              + (contractFailed ? "the memory contract did not hold" : ""));
      System.exit(1);
    }
  }

  private void throughputRuns(
      TransportClientFactory connections,
      TransportContext context,
      RandomPayload payload,
      ScheduledExecutorService retryTimer)
      throws Exception {
    Path recording = settings.profile() ? workDir.resolve("throughput-server.jfr") : null;
    List<JfrProfile.Window> ingestWindows = new ArrayList<>();
    List<JfrProfile.Window> readWindows = new ArrayList<>();
    int largest = settings.clients().stream().max(Integer::compare).orElseThrow();
    try (ServerProcess server =
        ServerProcess.start(
            settings.home(),
            workDir,
            "throughput",
            (long) settings.bufferMib() << 20,
            THROUGHPUT_READ_CAPACITY,
            recording,
            settings.serverConf())) {
      log(
          "started the throughput "
              + server
              + ", buffer.capacity "
              + settings.bufferMib()
              + " MiB, -XX:MaxDirectMemorySize "
              + mib(server.directMemoryLimit()));
      results.throughputServer = setup(server);
      ShuffleRun runs = shuffleRun(server, connections, context, payload, retryTimer);
      if (settings.warmupMib() > 0) {
        // Each load the rounds measure, once: the JIT compiles a hot method again when a load
        // takes a branch it never took (the first push held back, 16 readers at once), and a
        // long-running server has long paid for that.
        for (int clients : settings.clients()) {
          RunResult warmup = runs.run(nextShuffleId++, clients, (long) settings.warmupMib() << 20);
          log(String.format(Locale.ROOT, "warm-up, %2d client(s): %s", clients, summary(warmup)));
        }
      }
      for (int round = 1; round <= settings.rounds(); round++) {
        measureLimits(round, server.dataDir());
        for (int clients : settings.clients()) {
          RunResult run = runs.run(nextShuffleId++, clients, (long) settings.runMib() << 20);
          results.add(run);
          log(
              String.format(
                  Locale.ROOT, "round %d, %2d client(s): %s", round, clients, summary(run)));
          if (clients == largest) {
            ingestWindows.add(run.windows().get(0));
            readWindows.add(run.windows().get(1));
          }
        }
      }
      unregisterApp(connections, server);
    }
    if (recording != null && Files.exists(recording)) {
      results.profiledClients = largest;
      results.ingestProfile = JfrProfile.summarize(recording, ingestWindows, PROFILE_ROWS);
      results.readProfile = JfrProfile.summarize(recording, readWindows, PROFILE_ROWS);
    }
  }

  private void contractRun(
      TransportClientFactory connections,
      TransportContext context,
      RandomPayload payload,
      ScheduledExecutorService retryTimer)
      throws Exception {
    Path recording = settings.profile() ? workDir.resolve("contract-server.jfr") : null;
    try (ServerProcess server =
        ServerProcess.start(
            settings.home(),
            workDir,
            "contract",
            (long) settings.contractBufferMib() << 20,
            CONTRACT_READ_CAPACITY,
            recording)) {
      log(
          "started the contract "
              + server
              + ", buffer.capacity "
              + settings.contractBufferMib()
              + " MiB, -XX:MaxDirectMemorySize "
              + mib(server.directMemoryLimit()));
      results.contractServer = setup(server);
      RunResult run =
          shuffleRun(server, connections, context, payload, retryTimer)
              .run(
                  nextShuffleId++, settings.contractClients(), (long) settings.contractMib() << 20);
      results.contract = run;
      results.contractServerAlive = server.isAlive();
      log(
          "contract, "
              + settings.contractClients()
              + " clients: "
              + summary(run)
              + String.format(
                  Locale.ROOT,
                  ", peak push pool %s, peak direct %s of %s",
                  mib(run.peaks().pushHeld()),
                  mib(run.peaks().directTotal()),
                  mib(server.directMemoryLimit())));
      unregisterApp(connections, server);
    }
  }

  private ShuffleRun shuffleRun(
      ServerProcess server,
      TransportClientFactory connections,
      TransportContext context,
      RandomPayload payload,
      ScheduledExecutorService retryTimer)
      throws Exception {
    try (TransportClient admin =
        connections.createUnpooledClient(ServerProcess.HOST, server.port())) {
      ShuffleRun.registerApp(admin, APP_ID);
    }
    return new ShuffleRun(server, context, payload, retryTimer, APP_ID, settings.sampleMillis());
  }

  private static void unregisterApp(TransportClientFactory connections, ServerProcess server)
      throws Exception {
    try (TransportClient admin =
        connections.createUnpooledClient(ServerProcess.HOST, server.port())) {
      ShuffleRun.unregisterApp(admin, APP_ID);
    }
  }

  private void measureLimits(int round, Path dataDir) throws IOException, InterruptedException {
    if (iperf != null) {
      Iperf3.Measurement loopback = iperf.measure(1, settings.iperfSeconds(), 1);
      double bytesPerSecond = loopback.bitsPerSecond() / 8;
      results.loopbackBytesPerSecond.add(bytesPerSecond);
      results.loopbackReceiveCpuPerGib.add(loopback.receiverCpuSecondsPerGib());
      logLimit(
          round, "iperf3 loopback, 1 stream", bytesPerSecond, loopback.receiverCpuSecondsPerGib());
    }
    if (settings.probes()) {
      measureReceiveCopy(round);
    }
    DiskWriteTest.Result disk = DiskWriteTest.device(dataDir, settings.ddMib());
    results.diskBytesPerSecond.add(disk.bytesPerSecond());
    results.diskCpuPerGib.add(disk.cpuSecondsPerGib());
    results.ddCommand = disk.command();
    logLimit(round, disk.command(), disk.bytesPerSecond(), disk.cpuSecondsPerGib());
    if (!settings.probes()) {
      return;
    }
    // The page cache's write is not a target: the ingest CPU budget needs it where the server
    // flushes through the cache.
    DiskWriteTest.Result cache = DiskWriteTest.pageCache(dataDir, settings.ddMib());
    results.pageCacheBytesPerSecond.add(cache.bytesPerSecond());
    results.pageCacheCpuPerGib.add(cache.cpuSecondsPerGib());
    results.ddPageCacheCommand = cache.command();
    logLimit(round, cache.command(), cache.bytesPerSecond(), cache.cpuSecondsPerGib());
    measureSendfile(round, dataDir);
  }

  /** The CPU floor of receiving as a server receives ({@link ReceiveCopyProbe}). */
  private void measureReceiveCopy(int round) throws IOException, InterruptedException {
    try (ReceiveCopyProbe probe = new ReceiveCopyProbe()) {
      for (int clients : settings.clients()) {
        ReceiveCopyProbe.Result receive = probe.intoRegion(clients, (long) settings.ddMib() << 20);
        addPerClients(results.pooledReceiveCpuPerGib, clients, receive.cpuSecondsPerGib());
        addPerClients(results.pooledReceiveBytesPerSecond, clients, receive.bytesPerSecond());
        logLimit(
            round,
            "loopback received as a server receives, " + clients + " connection(s)",
            receive.bytesPerSecond(),
            receive.cpuSecondsPerGib());
      }
    }
  }

  /** The CPU floor of sending flushed data as a server does ({@link SendfileProbe}). */
  private void measureSendfile(int round, Path dataDir) throws IOException, InterruptedException {
    for (int clients : settings.clients()) {
      SendfileProbe.Result send = SendfileProbe.coldFile(dataDir, settings.ddMib(), clients);
      addPerClients(results.sendfileCpuPerGib, clients, send.cpuSecondsPerGib());
      addPerClients(results.sendfileBytesPerSecond, clients, send.bytesPerSecond());
      logLimit(
          round,
          "sendfile of a file written past the page cache, " + clients + " connection(s)",
          send.bytesPerSecond(),
          send.cpuSecondsPerGib());
    }
  }

  private static void addPerClients(Map<Integer, Series> series, int clients, double value) {
    series.computeIfAbsent(clients, c -> new Series()).add(value);
  }

  private static void logLimit(int round, String what, double bytesPerSecond, double cpuPerGib) {
    log(
        String.format(
            Locale.ROOT,
            "round %d, %s: %,.0f MiB/s, %.2f CPU-s/GiB",
            round,
            what,
            bytesPerSecond / (1 << 20),
            cpuPerGib));
  }

  static ServerBenchResults.ServerSetup setup(ServerProcess server) throws IOException {
    return new ServerBenchResults.ServerSetup(
        server.confLines(),
        server.commandLine(),
        server.bufferCapacity(),
        server.readCapacity(),
        server.directMemoryLimit(),
        server.recording().map(Path::toString).orElse(null));
  }

  private static String summary(RunResult r) {
    return String.format(
        Locale.ROOT,
        "%s acked at %,.0f MiB/s, flushed %s at %,.0f MiB/s, read %,.0f MiB/s, %,d held back, "
            + "%,d NO_BUFFER (%s), server GC %.2f%%, server %.2f CPU-s/GiB ingest, %s",
        mib(r.ackedBytes()),
        r.ackBytesPerSecond() / (1 << 20),
        mib(r.flushedBytes()),
        r.flushedBytesPerSecond() / (1 << 20),
        r.readBytesPerSecond() / (1 << 20),
        r.pushWaits(),
        r.noBufferRefusals(),
        Double.isNaN(r.refusals().medianFill())
            ? "never refused"
            : String.format(
                Locale.ROOT, "pool %.0f%% filled while refusing", r.refusals().medianFill() * 100),
        r.gcShare() * 100,
        r.serverCpuIngest() / (r.ackedBytes() / (double) (1 << 30)),
        r.intact()
            ? "all blocks intact"
            : r.read().problems() + " problems: " + r.read().firstProblems());
  }

  private static void log(String line) {
    System.out.println(line);
  }

  /** Removes what an earlier invocation left (data of a run that failed, logs, recordings). */
  private void cleanWorkDir() throws IOException {
    for (String name : List.of("throughput", "contract")) {
      deleteRecursively(workDir.resolve(name + "-data"));
      Files.deleteIfExists(workDir.resolve(name + ".conf"));
      Files.deleteIfExists(workDir.resolve(name + "-server.jfr"));
    }
    deleteRecursively(workDir.resolve("logs"));
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
