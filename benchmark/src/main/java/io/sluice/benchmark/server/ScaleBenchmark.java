package io.sluice.benchmark.server;

import static io.sluice.benchmark.Format.mib;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.DaemonThreads;
import io.sluice.benchmark.LatencyStats;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.MetricsPoller.Sample;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.client.core.push.FixedLocations;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import io.sluice.server.ServerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The server's hard bounds at cluster scale, against real server processes started with {@code
 * bin/start-server.sh}: (1) about 1,000 client connections from this JVM at once, most of them map
 * tasks pushing through {@code MapOutputPusher}, some pipelining pushes without reading and some
 * stopping mid-frame, with the server's direct memory, network pool and heap sampled against their
 * bounds and the well-behaved clients' data read back and checked; (2) the commit bookkeeping of a
 * 10,000-map x 10,000-partition shuffle driven over the wire, with the server's heap per (map,
 * partition); (3) commit and fetch latencies of a small application while a large application's
 * thousands of files are unregistered, against the same latencies just before. Prints a table and
 * rewrites the {@code scale} section of {@code docs/benchmarks/scale.md}. Run it with {@code
 * bin/bench-scale.sh}.
 */
public final class ScaleBenchmark {
  static final String APP = "scale-app";
  static final String LARGE_APP = "scale-large";
  static final String SMALL_APP = "scale-small";
  static final int PARTITIONS = ShuffleRun.PARTITIONS;

  /** Every scraped series: those of the throughput runs, the heap's limit and the receive side. */
  static final List<String> METRICS =
      Stream.concat(
              ShuffleRun.METRICS.stream(),
              Stream.of(
                  MetricsPoller.HEAP_MAX,
                  MetricsPoller.CONNECTIONS,
                  MetricsPoller.RECEIVE_RESERVED,
                  MetricsPoller.RECEIVE_WAITING))
          .toList();

  private static final int PAYLOAD_BYTES = (32 << 20) + RandomPayload.MAX_BLOCK_BYTES;

  /** Blocks of the large application: each partition's one block, at the flush threshold. */
  private static final int LARGE_BLOCK_BYTES = 64 << 10;

  private static final int LARGE_MAP_TASKS = 4;
  private static final int SMALL_FETCH_BLOCKS = 8;
  private static final long WARMUP_NANOS = 1_000_000_000L;

  /** Beyond the default {@code transport.frame.timeout} of 60 s. */
  static final long STALL_WAIT_NANOS = 80_000_000_000L;

  /** How long reservations may take to come back once the stalled connections closed. */
  private static final long SETTLE_NANOS = 5_000_000_000L;

  private final ScaleSettings settings;
  private final Path workDir;
  private final ScaleResults results = new ScaleResults();
  private TransportContext context;
  private TransportClientFactory factory;
  private ScheduledExecutorService timer;
  private RandomPayload payload;

  private ScaleBenchmark(ScaleSettings settings) {
    this.settings = settings;
    this.workDir = settings.workDir().toAbsolutePath();
  }

  public static void main(String[] args) throws Exception {
    ScaleSettings settings = ScaleSettings.FLAGS.parseOrExit(args, ScaleSettings::of);
    System.exit(new ScaleBenchmark(settings).run() ? 0 : 1);
  }

  private boolean run() throws Exception {
    Files.createDirectories(workDir);
    for (String name : List.of("scale-connections", "scale-commits", "scale-unregister")) {
      ServerBenchmark.deleteRecursively(workDir.resolve(name + "-data"));
      Files.deleteIfExists(workDir.resolve(name + ".conf"));
    }
    ServerBenchmark.deleteRecursively(workDir.resolve("logs"));
    // One event-loop group for every simulated client: each connection is unpooled, its own.
    context = ShuffleRun.context("scale-benchmark", 2);
    timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("bench-push-retry"));
    try (TransportClientFactory f = context.createClientFactory();
        RandomPayload p = new RandomPayload(PAYLOAD_BYTES, 42)) {
      factory = f;
      payload = p;
      if (settings.connections()) {
        results.connections = connectionsPart();
      }
      if (settings.commits()) {
        results.commits = commitsPart();
      }
      if (settings.unregister()) {
        results.unregister = unregisterPart();
      }
    } finally {
      timer.shutdownNow();
    }
    ScaleReport report = new ScaleReport(settings, results);
    BenchRecord record = report.record();
    BenchmarkReport.publish(record, settings.output());
    List<String> failures = report.failures();
    failures.forEach(f -> System.err.println("FAILED: " + f));
    return failures.isEmpty();
  }

  // ---- 1: a thousand connections ----

  private ScaleResults.Connections connectionsPart() throws Exception {
    try (ServerProcess server =
        ServerProcess.start(
            settings.home(),
            workDir,
            "scale-connections",
            (long) settings.bufferMib() << 20,
            (long) settings.readMib() << 20,
            null,
            Map.of(
                TransportOptions.MAX_CONNECTIONS.key(),
                String.valueOf(settings.maxConnections())))) {
      log(
          "started the connections "
              + server
              + ", -XX:MaxDirectMemorySize "
              + mib(server.directMemoryLimit()));
      ServerBenchResults.ServerSetup setup = ServerBenchmark.setup(server);
      long networkAllowance =
          server.directMemoryLimit() - server.bufferCapacity() - server.readCapacity();
      List<TransportClient> clients = new ArrayList<>();
      ExecutorService threads =
          Executors.newFixedThreadPool(settings.pushers(), DaemonThreads.named("bench-pusher"));
      MetricsPoller metrics =
          new MetricsPoller(
              List.of(server.httpPort()),
              METRICS,
              java.time.Duration.ofMillis(settings.sampleMillis()));
      HostileConnections hostile = null;
      try {
        TransportClient admin = factory.createUnpooledClient(ServerProcess.HOST, server.port());
        clients.add(admin);
        register(admin, APP, 0, PARTITIONS);
        PartitionLocation location = location(admin, server);
        FixedLocations locations = new FixedLocations(Collections.nCopies(PARTITIONS, location));
        List<Connections> own = new ArrayList<>();
        for (int i = 0; i < settings.pushers(); i++) {
          TransportClient c = factory.createUnpooledClient(ServerProcess.HOST, server.port());
          clients.add(c);
          own.add(connectionOf(c));
        }
        hostile =
            HostileConnections.connect(
                ServerProcess.HOST, server.port(), settings, APP, 0, PARTITIONS);
        ShuffleRun shuffle =
            new ShuffleRun(server, context, payload, timer, APP, settings.sampleMillis());

        Sample before = metrics.scrape(0);
        log(
            String.format(
                Locale.ROOT,
                "%,d connections open on the server (%d pushers, %d "
                    + "pipeliners, %d stallers and the admin's)",
                (long) before.get(MetricsPoller.CONNECTIONS),
                settings.pushers(),
                settings.pipeliners(),
                settings.stallers()));
        CpuSnapshot cpu0 = CpuSnapshot.take();
        metrics.start();
        CountDownLatch go = new CountDownLatch(1);
        long share = (long) settings.pushMib() << 20;
        long[] pushed = new long[settings.pushers()];
        long[] doneNanos = new long[settings.pushers()];
        int[][] counts = new int[settings.pushers()][PARTITIONS];
        long start = System.nanoTime();
        // Once every pusher waits on its thread, the hostile clients start writing, and (at once
        // or a second later) the pushers.
        CountDownLatch ready = new CountDownLatch(settings.pushers());
        HostileConnections attackers = hostile;
        Thread starter =
            new Thread(
                () -> {
                  try {
                    ready.await();
                    attackers.start();
                    if (settings.hostileFirst()) {
                      // Their frames reach the server first: stalled ones hold their reservations
                      // when the well-behaved clients begin.
                      Thread.sleep(1_000);
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    go.countDown();
                  }
                },
                "bench-starter");
        starter.setDaemon(true);
        starter.start();
        ShuffleRun.all(
            threads,
            settings.pushers(),
            client -> {
              ready.countDown();
              go.await();
              MapOutputPusher pusher =
                  new MapOutputPusher(
                      own.get(client),
                      context.allocator(),
                      timer,
                      ShuffleRun.PUSH,
                      locations,
                      APP,
                      0,
                      PARTITIONS,
                      client);
              pushed[client] = shuffle.push(pusher, 0, client, share);
              pusher.commit(client);
              doneNanos[client] = System.nanoTime() - start;
              for (int p = 0; p < PARTITIONS; p++) {
                counts[client][p] = pusher.blockCount(p);
              }
            });
        double pushSeconds = (System.nanoTime() - start) / 1e9;
        log(
            String.format(
                Locale.ROOT,
                "%d clients pushed and committed %s in %.1f s",
                settings.pushers(),
                mib(Arrays.stream(pushed).sum()),
                pushSeconds));

        long readStart = System.nanoTime();
        ReadCheck check = new ReadCheck(payload, 0, counts, PARTITIONS);
        int readers = Math.min(settings.readers(), Math.min(PARTITIONS, settings.pushers()));
        ShuffleRun.all(
            threads,
            readers,
            reader ->
                shuffle.read(
                    own.get(reader),
                    0,
                    location,
                    IntStream.iterate(reader, p -> p < PARTITIONS, p -> p + readers).toArray(),
                    counts,
                    check));
        check.checkComplete();
        double readSeconds = (System.nanoTime() - readStart) / 1e9;
        Sample end = metrics.scrape(0);
        CpuSnapshot cpu1 = CpuSnapshot.take();
        metrics.close();
        if (metrics.failure() != null) {
          throw new IOException("sampling the server's metrics failed", metrics.failure());
        }
        // The stallers hold their reservations until transport.frame.timeout closes them: wait
        // for that, and see what is still reserved once they are gone.
        long stallDeadline = System.nanoTime() + STALL_WAIT_NANOS;
        while (hostile.outcome().stallersClosed() < settings.stallers()
            && System.nanoTime() < stallDeadline) {
          Thread.sleep(100);
        }
        // Closing a connection gives its reservation back on its event loop: wait (bounded) for
        // the count to settle at zero rather than read it at once; what stays is reported.
        Sample afterStallers = metrics.scrape(0);
        long settleDeadline = System.nanoTime() + SETTLE_NANOS;
        while (afterStallers.get(MetricsPoller.RECEIVE_RESERVED) > 0
            && System.nanoTime() < settleDeadline) {
          Thread.sleep(50);
          afterStallers = metrics.scrape(0);
        }
        HostileConnections.Outcome outcome = hostile.outcome();
        List<Sample> samples = new ArrayList<>(metrics.samples(0));
        samples.add(end);
        ScaleResults.Connections result =
            new ScaleResults.Connections(
                setup,
                networkAllowance,
                ScaleResults.Memory.of(samples),
                settings.pushers(),
                Arrays.stream(pushed).sum(),
                Arrays.stream(counts).flatMapToInt(Arrays::stream).asLongStream().sum(),
                check.summary(),
                pushSeconds,
                LatencyStats.of(doneNanos, System.nanoTime() - start),
                readSeconds,
                (long) end.since(before, MetricsPoller.NO_BUFFER),
                outcome,
                end.since(before, MetricsPoller.CPU_SECONDS),
                cpu1.machineCoresSince(cpu0),
                afterStallers.get(MetricsPoller.RECEIVE_RESERVED),
                afterStallers.get(MetricsPoller.CONNECTIONS),
                server.isAlive());
        for (Sample s : samples) {
          if (s.get(MetricsPoller.PUSH_HELD) > server.bufferCapacity()) {
            log(
                String.format(
                    Locale.ROOT,
                    "push pool above buffer.capacity (%,d) at %d ms: " + "held %,.0f, blocks %,.0f",
                    server.bufferCapacity(),
                    (s.nanoTime() - start) / 1_000_000,
                    s.get(MetricsPoller.PUSH_HELD),
                    s.get(MetricsPoller.PUSH_ALLOCATED)));
          }
        }
        log(
            String.format(
                Locale.ROOT,
                "read back in %.1f s: %s; peak direct %s of %s, peak "
                    + "network pool %s of %s, peak heap %s of %s, peak connections %,.0f",
                readSeconds,
                result.intact()
                    ? "all blocks intact"
                    : result.read().problems() + " problems: " + result.read().firstProblems(),
                mib(result.memory().peaks().directTotal()),
                mib(server.directMemoryLimit()),
                mib(result.memory().peaks().network()),
                mib(networkAllowance),
                mib(result.memory().peaks().heap()),
                mib(result.memory().heapMax()),
                result.memory().connections()));
        ShuffleRun.unregisterApp(admin, APP);
        return result;
      } finally {
        if (hostile != null) {
          hostile.close();
        }
        metrics.close();
        threads.shutdownNow();
        clients.forEach(TransportClient::close);
      }
    }
  }

  // ---- 2: the commit bookkeeping of 10,000 x 10,000 ----

  private ScaleResults.Commits commitsPart() throws Exception {
    int maps = settings.maps();
    int partitions = settings.partitions();
    try (ServerProcess server =
            ServerProcess.start(
                settings.home(),
                workDir,
                "scale-commits",
                (long) settings.bufferMib() << 20,
                (long) settings.readMib() << 20,
                null);
        TransportClient admin = factory.createUnpooledClient(ServerProcess.HOST, server.port())) {
      log("started the commit-scale " + server);
      MetricsPoller metrics =
          new MetricsPoller(
              List.of(server.httpPort()),
              METRICS,
              java.time.Duration.ofMillis(settings.sampleMillis()));
      try {
        register(admin, APP, 0, partitions);
        server.collectGarbage();
        Sample before = metrics.scrape(0);
        metrics.start();
        int[] partitionIds = IntStream.range(0, partitions).toArray();
        ArrayDeque<CompletableFuture<StatusResponse>> inFlight = new ArrayDeque<>();
        long start = System.nanoTime();
        for (int m = 0; m < maps; m++) {
          int[] counts = new int[partitions];
          for (int p = 0; p < partitions; p++) {
            counts[p] = commitCount(m, p);
          }
          inFlight.add(
              admin.request(
                  new CommitMapOutputRequest(
                      TransportClient.nextRequestId(),
                      APP,
                      0,
                      m,
                      commitAttempt(m),
                      partitionIds,
                      counts),
                  StatusResponse.class));
          if (inFlight.size() == settings.commitsInFlight()) {
            await(inFlight.poll());
          }
        }
        while (!inFlight.isEmpty()) {
          await(inFlight.poll());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Sample committed = metrics.scrape(0);
        metrics.close();
        server.collectGarbage();
        Sample after = metrics.scrape(0);
        List<Sample> samples = new ArrayList<>(metrics.samples(0));
        samples.add(committed);

        long[] attempts =
            IntStream.range(0, maps).mapToLong(ScaleBenchmark::commitAttempt).toArray();
        String problem = null;
        int[] checked = IntStream.of(0, 1, partitions / 2, partitions - 1).distinct().toArray();
        for (int p : checked) {
          int[] got =
              await(
                      admin.request(
                          new GetShuffleResultRequest(
                              TransportClient.nextRequestId(), APP, 0, p, attempts),
                          GetShuffleResultResponse.class))
                  .blockCounts();
          for (int m = 0; m < maps && problem == null; m++) {
            if (got.length != maps || got[m] != commitCount(m, p)) {
              problem =
                  "partition "
                      + p
                      + ", map "
                      + m
                      + ": "
                      + (got.length != maps
                          ? got.length + " counts for " + maps + " maps"
                          : got[m] + " blocks, committed " + commitCount(m, p));
            }
          }
        }
        long unregisterStart = System.nanoTime();
        ShuffleRun.unregisterApp(admin, APP);
        double unregisterMillis = (System.nanoTime() - unregisterStart) / 1e6;
        ScaleResults.Commits result =
            new ScaleResults.Commits(
                ServerBenchmark.setup(server),
                maps,
                partitions,
                settings.commitsInFlight(),
                seconds,
                (long) before.get(MetricsPoller.HEAP),
                (long) after.get(MetricsPoller.HEAP),
                ScaleResults.Memory.of(samples),
                checked.length,
                problem,
                committed.since(before, MetricsPoller.CPU_SECONDS),
                unregisterMillis);
        log(
            String.format(
                Locale.ROOT,
                "%,d commits of %,d partitions in %.1f s; heap after a "
                    + "full GC %s -> %s (%.2f bytes per pair), peak heap %s of %s; counts %s",
                maps,
                partitions,
                seconds,
                mib(result.heapBefore()),
                mib(result.heapAfter()),
                result.heapBytesPerPair(),
                mib(result.memory().peaks().heap()),
                mib(result.memory().heapMax()),
                problem == null ? "intact" : problem));
        return result;
      } finally {
        metrics.close();
      }
    }
  }

  /** As CommitScaleTest: a few counts beyond what a byte holds. */
  private static int commitCount(int map, int partition) {
    return (map * 31 + partition) % 1_000 == 0 ? 300 : 1 + (map + partition) % 4;
  }

  private static long commitAttempt(int map) {
    return 5_000_000_000L + map * 3L;
  }

  // ---- 3: latencies while a large application is unregistered ----

  private ScaleResults.Unregister unregisterPart() throws Exception {
    // Every partition that holds 64 KiB is flushed on its own: each of the large shuffle's
    // partitions gets a data file and an index file.
    try (ServerProcess server =
        ServerProcess.start(
            settings.home(),
            workDir,
            "scale-unregister",
            (long) settings.bufferMib() << 20,
            (long) settings.readMib() << 20,
            null,
            Map.of(
                ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                String.valueOf(LARGE_BLOCK_BYTES)))) {
      log("started the unregister " + server);
      List<TransportClient> clients = new ArrayList<>();
      MetricsPoller metrics =
          new MetricsPoller(
              List.of(server.httpPort()),
              METRICS,
              java.time.Duration.ofMillis(settings.sampleMillis()));
      ExecutorService threads = Executors.newCachedThreadPool(DaemonThreads.named("bench-latency"));
      AtomicBoolean running = new AtomicBoolean(true);
      try {
        TransportClient admin = factory.createUnpooledClient(ServerProcess.HOST, server.port());
        clients.add(admin);
        PartitionLocation location = location(admin, server);
        int large = settings.largePartitions();
        register(admin, LARGE_APP, 0, large);
        writeLargeShuffle(server, large, location, clients);
        ShuffleRun.awaitFlushSettled(metrics, settings.sampleMillis());
        Path appDir = server.dataDir().resolve(LARGE_APP);
        long[] files = filesUnder(appDir);
        log(
            String.format(
                Locale.ROOT,
                "%s: %,d partitions flushed, %,d files of %s on disk",
                LARGE_APP,
                large,
                files[0],
                mib(files[1])));

        register(admin, SMALL_APP, 0, 1);
        await(
            admin.request(
                new RegisterShuffleRequest(TransportClient.nextRequestId(), SMALL_APP, 1, 1),
                StatusResponse.class));
        TransportClient fetchConnection =
            factory.createUnpooledClient(ServerProcess.HOST, server.port());
        clients.add(fetchConnection);
        TransportClient commitConnection =
            factory.createUnpooledClient(ServerProcess.HOST, server.port());
        clients.add(commitConnection);
        MapOutputPusher small =
            new MapOutputPusher(
                connectionOf(fetchConnection),
                context.allocator(),
                timer,
                ShuffleRun.PUSH,
                new FixedLocations(List.of(location)),
                SMALL_APP,
                1,
                1,
                0);
        for (int b = 0; b < SMALL_FETCH_BLOCKS; b++) {
          ByteBuf block = payload.block(1, 0, 0, b);
          small.add(0, block, block.readableBytes());
        }
        small.finish();
        small.commit(0);
        int[][] fetchCounts = {{SMALL_FETCH_BLOCKS}};
        ShuffleRun smallRun =
            new ShuffleRun(server, context, payload, timer, SMALL_APP, settings.sampleMillis());

        Timings commits = new Timings();
        Timings fetches = new Timings();
        List<String> fetchProblems = Collections.synchronizedList(new ArrayList<>());
        Future<?> commitLoop =
            threads.submit(
                () -> {
                  long attempt = 1;
                  while (running.get()) {
                    long t = System.nanoTime();
                    await(
                        commitConnection.request(
                            new CommitMapOutputRequest(
                                TransportClient.nextRequestId(),
                                SMALL_APP,
                                0,
                                0,
                                attempt++,
                                new int[] {0},
                                new int[] {1}),
                            StatusResponse.class));
                    commits.add(t, System.nanoTime() - t);
                  }
                  return null;
                });
        Future<?> fetchLoop =
            threads.submit(
                () -> {
                  while (running.get()) {
                    long t = System.nanoTime();
                    ReadCheck check = new ReadCheck(payload, 1, fetchCounts, 1);
                    smallRun.read(
                        connectionOf(fetchConnection),
                        1,
                        location,
                        new int[] {0},
                        fetchCounts,
                        check);
                    check.checkComplete();
                    fetches.add(t, System.nanoTime() - t);
                    RunResult.ReadSummary s = check.summary();
                    if (s.problems() > 0) {
                      fetchProblems.addAll(s.firstProblems());
                    }
                  }
                  return null;
                });
        long loopsStart = System.nanoTime();
        Thread.sleep(WARMUP_NANOS / 1_000_000);
        Sample before = metrics.scrape(0);
        metrics.start();
        long baselineStart = System.nanoTime();
        Thread.sleep(settings.latencySeconds() * 1000L);
        long unregisterStart = System.nanoTime();
        ShuffleRun.unregisterApp(admin, LARGE_APP);
        double answerMillis = (System.nanoTime() - unregisterStart) / 1e6;
        Path trash = server.dataDir().resolve("sluice+trash");
        while (Files.exists(appDir) || !isEmpty(trash)) {
          if (System.nanoTime() - unregisterStart > 300_000_000_000L) {
            throw new IOException("the large application's files were still there after 5 min");
          }
          Thread.sleep(2);
        }
        long deletionEnd = System.nanoTime();
        double deletionMillis = (deletionEnd - unregisterStart) / 1e6;
        running.set(false);
        commitLoop.get();
        fetchLoop.get();
        metrics.close();
        List<Sample> samples = new ArrayList<>(metrics.samples(0));
        samples.add(metrics.scrape(0));
        log(
            String.format(
                Locale.ROOT,
                "unregistering %s: answered in %.1f ms, %,d files gone "
                    + "after %.0f ms; loops ran %.1f s",
                LARGE_APP,
                answerMillis,
                files[0],
                deletionMillis,
                (deletionEnd - loopsStart) / 1e9));
        ScaleResults.Unregister result =
            new ScaleResults.Unregister(
                ServerBenchmark.setup(server),
                large,
                files[0],
                files[1],
                answerMillis,
                deletionMillis,
                commits.between(baselineStart, unregisterStart),
                commits.between(unregisterStart, deletionEnd),
                fetches.between(baselineStart, unregisterStart),
                fetches.between(unregisterStart, deletionEnd),
                fetchProblems.size(),
                fetchProblems.isEmpty() ? null : fetchProblems.get(0),
                ScaleResults.Memory.of(samples));
        log(
            "commit latency before / during: "
                + describe(result.commitsBefore())
                + " / "
                + describe(result.commitsDuring())
                + "; fetch: "
                + describe(result.fetchesBefore())
                + " / "
                + describe(result.fetchesDuring()));
        ShuffleRun.unregisterApp(admin, SMALL_APP);
        return result;
      } finally {
        running.set(false);
        metrics.close();
        threads.shutdownNow();
        clients.forEach(TransportClient::close);
      }
    }
  }

  /** One 64 KiB block to every partition of the large shuffle, from a few map tasks. */
  private void writeLargeShuffle(
      ServerProcess server,
      int partitions,
      PartitionLocation location,
      List<TransportClient> clients)
      throws Exception {
    byte[] bytes = new byte[LARGE_BLOCK_BYTES];
    new Random(5).nextBytes(bytes);
    ByteBuf block =
        Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes));
    FixedLocations locations = new FixedLocations(Collections.nCopies(partitions, location));
    List<TransportClient> own = new ArrayList<>();
    for (int t = 0; t < LARGE_MAP_TASKS; t++) {
      own.add(factory.createUnpooledClient(ServerProcess.HOST, server.port()));
    }
    clients.addAll(own);
    ExecutorService threads = Executors.newFixedThreadPool(LARGE_MAP_TASKS);
    try {
      ShuffleRun.all(
          threads,
          LARGE_MAP_TASKS,
          task -> {
            MapOutputPusher pusher =
                new MapOutputPusher(
                    connectionOf(own.get(task)),
                    context.allocator(),
                    timer,
                    ShuffleRun.PUSH,
                    locations,
                    LARGE_APP,
                    0,
                    partitions,
                    task);
            for (int p = task; p < partitions; p += LARGE_MAP_TASKS) {
              pusher.add(p, block.duplicate(), LARGE_BLOCK_BYTES);
            }
            pusher.finish();
            pusher.commit(task);
          });
    } finally {
      threads.shutdownNow();
    }
  }

  /** Regular files under {@code dir} and their bytes. */
  private static long[] filesUnder(Path dir) throws IOException {
    long[] filesAndBytes = new long[2];
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .filter(Files::isRegularFile)
          .forEach(
              p -> {
                filesAndBytes[0]++;
                filesAndBytes[1] += p.toFile().length();
              });
    }
    return filesAndBytes;
  }

  private static boolean isEmpty(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return true;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }

  /** Latencies with the times they started, from one loop. */
  private static final class Timings {
    private long[] starts = new long[1 << 12];
    private long[] nanos = new long[1 << 12];
    private int size;

    synchronized void add(long start, long latency) {
      if (size == starts.length) {
        starts = Arrays.copyOf(starts, size * 2);
        nanos = Arrays.copyOf(nanos, size * 2);
      }
      starts[size] = start;
      nanos[size++] = latency;
    }

    /** The latencies of the operations that started in [from, to), or null for none. */
    synchronized LatencyStats between(long from, long to) {
      long[] in =
          IntStream.range(0, size)
              .filter(i -> starts[i] >= from && starts[i] < to)
              .mapToLong(i -> nanos[i])
              .toArray();
      return in.length == 0 ? null : LatencyStats.of(in, to - from);
    }
  }

  private static String describe(LatencyStats s) {
    return s == null
        ? "none"
        : String.format(
            Locale.ROOT,
            "p50 %s µs, p99 %s µs (%,d)",
            LatencyStats.micros(s.p50Nanos()),
            LatencyStats.micros(s.p99Nanos()),
            s.count());
  }

  // ---- helpers ----

  private static void register(TransportClient admin, String appId, int shuffleId, int partitions)
      throws Exception {
    ShuffleRun.registerApp(admin, appId);
    await(
        admin.request(
            new RegisterShuffleRequest(
                TransportClient.nextRequestId(), appId, shuffleId, partitions),
            StatusResponse.class));
  }

  private static PartitionLocation location(TransportClient admin, ServerProcess server) {
    return new PartitionLocation(
        0, List.of(new ServerAddress(admin.serverId(), ServerProcess.HOST, server.port())));
  }

  /** A client's own connection, as the pusher and the reader take connections. */
  private static Connections connectionOf(TransportClient client) {
    return (host, port) -> CompletableFuture.completedFuture(client);
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return ShuffleRun.await(future);
  }

  private static void log(String line) {
    System.out.println(line);
  }
}
