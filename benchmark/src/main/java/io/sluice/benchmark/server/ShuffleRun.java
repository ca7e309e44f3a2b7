package io.sluice.benchmark.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.benchmark.DaemonThreads;
import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.MetricsPoller.Sample;
import io.sluice.client.core.push.FixedLocations;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.client.core.push.PushSettings;
import io.sluice.client.core.read.FetchSettings;
import io.sluice.client.core.read.FetchedBlock;
import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.client.core.read.PartitionReader;
import io.sluice.client.core.read.PartitionReader.PartitionSource;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.shuffle.Backoff;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.NettyTransports;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * One measured run against a running server: registers a shuffle, has {@code clients} map tasks
 * push their shares of the bytes through {@link MapOutputPusher} and commit, waits until the server
 * has flushed what it flushes, reads the whole shuffle back with as many {@link PartitionReader}s,
 * checks it with a {@link ReadCheck}, and deletes the shuffle. Each client has a connection pool of
 * its own (one connection, one event loop). The server's metrics are sampled throughout for peaks,
 * and read at the phases' ends for rates.
 */
final class ShuffleRun {
  static final int PARTITIONS = 64;

  /** As the Spark client's default {@code spark.sluice.push.batch.size} and max.in.flight. */
  static final PushSettings PUSH =
      new PushSettings(
          2 << 20, 32 << 20, new Backoff(Duration.ofMillis(2), Duration.ofMillis(64), 5_000), 0);

  static final long FETCH_IN_FLIGHT = 16 << 20;
  static final int FETCH_REQUEST = 4 << 20;
  static final Backoff FETCH_BACKOFF =
      new Backoff(Duration.ofMillis(1), Duration.ofMillis(64), 1_000);

  /**
   * What the background sampling reads, for peaks and for the refusals between samples: gauges and
   * cheap counters only, since every scrape costs the measured server CPU (its CPU by threads reads
   * a file per thread).
   */
  static final List<String> SAMPLED =
      List.of(
          MetricsPoller.PUSH_HELD,
          MetricsPoller.PUSH_ALLOCATED,
          MetricsPoller.NETWORK,
          MetricsPoller.NETTY_DIRECT,
          MetricsPoller.READ_USED,
          MetricsPoller.JDK_DIRECT,
          MetricsPoller.FLUSHED,
          MetricsPoller.FLUSH_QUEUE,
          MetricsPoller.REJECTIONS,
          MetricsPoller.RESIDENT,
          MetricsPoller.HEAP);

  /** What is read at the start and end of each phase: everything the results need. */
  static final List<String> METRICS =
      Stream.concat(
              SAMPLED.stream(),
              Stream.of(
                  MetricsPoller.PUSHED,
                  MetricsPoller.PUSH_WAITS,
                  MetricsPoller.READ,
                  MetricsPoller.GC_SECONDS,
                  MetricsPoller.GC_COUNT,
                  MetricsPoller.CPU_SECONDS,
                  MetricsPoller.THREAD_CPU))
          .toList();

  private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(5);
  private static final int SETTLED_SAMPLES = 3;
  private static final long TIMEOUT_SECONDS = 120;

  private final ServerProcess server;
  private final TransportContext context;
  private final ScheduledExecutorService timer;
  private final RandomPayload payload;
  private final String appId;
  private final int sampleMillis;

  ShuffleRun(
      ServerProcess server,
      TransportContext context,
      RandomPayload payload,
      ScheduledExecutorService timer,
      String appId,
      int sampleMillis) {
    this.server = server;
    this.context = context;
    this.payload = payload;
    this.timer = timer;
    this.appId = appId;
    this.sampleMillis = sampleMillis;
  }

  RunResult run(int shuffleId, int clients, long totalBytes) throws Exception {
    List<TransportClientFactory> pools = new ArrayList<>();
    ExecutorService threads =
        Executors.newFixedThreadPool(clients, DaemonThreads.named("bench-client"));
    MetricsPoller metrics =
        new MetricsPoller(List.of(server.httpPort()), SAMPLED, Duration.ofMillis(sampleMillis));
    // Never started: scraped at the phases' ends only.
    MetricsPoller totals =
        new MetricsPoller(List.of(server.httpPort()), METRICS, Duration.ofMillis(sampleMillis));
    try {
      TransportClient admin = null;
      for (int i = 0; i < clients; i++) {
        pools.add(context.createClientFactory());
        // Connected before the clock starts, as the old benchmark's own connections were.
        TransportClient connection = pools.get(i).getClient(ServerProcess.HOST, server.port());
        admin = admin == null ? connection : admin;
      }
      await(
          admin.request(
              new RegisterShuffleRequest(
                  TransportClient.nextRequestId(), appId, shuffleId, PARTITIONS),
              StatusResponse.class));
      PartitionLocation location =
          new PartitionLocation(
              0, List.of(new ServerAddress(admin.serverId(), ServerProcess.HOST, server.port())));
      FixedLocations locations = new FixedLocations(Collections.nCopies(PARTITIONS, location));
      ByteBufAllocator allocator = context.allocator();
      List<MapOutputPusher> pushers = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        pushers.add(
            new MapOutputPusher(
                pools.get(i), allocator, timer, PUSH, locations, appId, shuffleId, PARTITIONS, i));
      }

      Sample before = totals.scrape(0);
      CpuSnapshot cpu0 = CpuSnapshot.take();
      Instant ingestStart = Instant.now();
      metrics.start();
      long[] pushed = new long[clients];
      all(
          threads,
          clients,
          i ->
              pushed[i] =
                  push(
                      pushers.get(i),
                      shuffleId,
                      i,
                      totalBytes / clients + (i < totalBytes % clients ? 1 : 0)));
      long acked = System.nanoTime();
      all(threads, clients, i -> pushers.get(i).commit(i));
      Sample settled = awaitFlushSettled(metrics, sampleMillis);
      Sample ingestEnd = totals.scrape(0);
      CpuSnapshot cpu1 = CpuSnapshot.take();
      Instant readStart = Instant.now();

      int[][] counts = new int[clients][PARTITIONS];
      for (int i = 0; i < clients; i++) {
        for (int p = 0; p < PARTITIONS; p++) {
          counts[i][p] = pushers.get(i).blockCount(p);
        }
      }
      ReadCheck check = new ReadCheck(payload, shuffleId, counts, PARTITIONS);
      all(
          threads,
          clients,
          reader ->
              read(
                  pools.get(reader),
                  shuffleId,
                  location,
                  IntStream.iterate(reader, p -> p < PARTITIONS, p -> p + clients).toArray(),
                  counts,
                  check));
      check.checkComplete();
      Sample readEnd = totals.scrape(0);
      CpuSnapshot cpu2 = CpuSnapshot.take();
      Instant readStop = Instant.now();
      metrics.close();
      if (metrics.failure() != null) {
        throw new IOException("sampling the server's metrics failed", metrics.failure());
      }
      List<Sample> sampled = new ArrayList<>(metrics.samples(0));
      sampled.add(readEnd);

      await(
          admin.request(
              new UnregisterShuffleRequest(TransportClient.nextRequestId(), appId, shuffleId),
              StatusResponse.class));

      long t0 = before.nanoTime();
      return new RunResult(
          clients,
          IntStream.range(0, clients).mapToLong(i -> pushed[i]).sum(),
          IntStream.range(0, clients).mapToLong(i -> IntStream.of(counts[i]).sum()).sum(),
          (long) ingestEnd.since(before, MetricsPoller.NO_BUFFER),
          (long) ingestEnd.since(before, MetricsPoller.PUSH_WAITS),
          seconds(acked - t0),
          seconds(Math.max(settled.nanoTime(), acked) - t0),
          seconds(ingestEnd.nanoTime() - t0),
          seconds(readEnd.nanoTime() - ingestEnd.nanoTime()),
          (long) ingestEnd.since(before, MetricsPoller.FLUSHED),
          (long) ingestEnd.since(before, MetricsPoller.PUSHED),
          ingestEnd.since(before, MetricsPoller.CPU_SECONDS),
          readEnd.since(ingestEnd, MetricsPoller.CPU_SECONDS),
          threadCpu(before, ingestEnd),
          threadCpu(ingestEnd, readEnd),
          cpu1.benchmarkCoresSince(cpu0),
          cpu2.benchmarkCoresSince(cpu1),
          cpu1.machineCoresSince(cpu0),
          cpu2.machineCoresSince(cpu1),
          readEnd.since(before, MetricsPoller.GC_SECONDS),
          (long) readEnd.since(before, MetricsPoller.GC_COUNT),
          (long) readEnd.since(before, MetricsPoller.READ_MEMORY),
          (long) readEnd.since(before, MetricsPoller.READ_DISK),
          check.summary(),
          RunResult.Peaks.of(sampled),
          RunResult.Refusals.of(sampled),
          sampleMillis,
          List.of(
              new JfrProfile.Window(ingestStart, readStart),
              new JfrProfile.Window(readStart, readStop)));
    } finally {
      threads.shutdownNow();
      metrics.close();
      pools.forEach(TransportClientFactory::close);
    }
  }

  /** What each group of the server's threads spent between two samples, in CPU seconds. */
  private static Map<String, Double> threadCpu(Sample from, Sample to) {
    Map<String, Double> cpu = new LinkedHashMap<>();
    for (String group : MetricsPoller.THREAD_GROUPS) {
      cpu.put(group, to.since(from, MetricsPoller.threadCpu(group)));
    }
    return cpu;
  }

  /** One map task: pushes blocks to random partitions until its share is out; returns bytes. */
  long push(MapOutputPusher pusher, int shuffleId, int attempt, long share) throws IOException {
    Random random = new Random(31L * attempt + shuffleId);
    long sent = 0;
    while (sent < share) {
      int partition = random.nextInt(PARTITIONS);
      ByteBuf block = payload.block(shuffleId, attempt, partition, pusher.blockCount(partition));
      sent += block.readableBytes();
      pusher.add(partition, block, block.readableBytes());
    }
    pusher.finish();
    return sent;
  }

  /** One reducer: reads its partitions through the given connections and checks every block. */
  void read(
      Connections pool,
      int shuffleId,
      PartitionLocation location,
      int[] partitions,
      int[][] counts,
      ReadCheck check)
      throws InterruptedException {
    List<PartitionSource> sources = new ArrayList<>();
    for (int p : partitions) {
      long[] attempts =
          IntStream.range(0, counts.length).filter(a -> counts[a][p] > 0).asLongStream().toArray();
      sources.add(new PartitionSource(p, List.of(location), attempts));
    }
    FetchSettings settings =
        FetchSettings.of(
            FETCH_IN_FLIGHT, FETCH_REQUEST, context.conf().maxFrameSize(), FETCH_BACKOFF);
    PartitionReader reader =
        new PartitionReader(appId, shuffleId, sources, settings, pool, context.allocator(), timer);
    reader.start();
    try {
      for (FetchedBlock b = reader.take(() -> {}); b != null; b = reader.take(() -> {})) {
        try {
          check.verify(b);
        } finally {
          reader.consumed(b);
        }
      }
    } catch (PartitionFetchException e) {
      check.failed(e);
    } finally {
      reader.close();
    }
  }

  /**
   * Waits until flushing is over: the flush queue is empty and the flushed byte count has not moved
   * for a few samples. Returns the first sample that saw the final count, whose time is when the
   * last flush ended (to within one interval).
   */
  static Sample awaitFlushSettled(MetricsPoller metrics, int sampleMillis)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    Sample firstAtFinal = null;
    Sample s = null;
    double last = -1;
    int stable = 0;
    while (System.nanoTime() < deadline) {
      s = metrics.scrape(0);
      double flushed = s.get(MetricsPoller.FLUSHED);
      if (flushed != last) {
        firstAtFinal = s;
        last = flushed;
        stable = 0;
      } else if (s.get(MetricsPoller.FLUSH_QUEUE) == 0 && ++stable >= SETTLED_SAMPLES) {
        return firstAtFinal;
      }
      Thread.sleep(sampleMillis);
    }
    throw new IOException(
        "the server was still flushing after "
            + SETTLE_TIMEOUT.toSeconds()
            + " s: "
            + (s == null
                ? "no sample"
                : String.format(
                    Locale.ROOT,
                    "flush queue %.0f, %.0f bytes flushed, the count %s",
                    s.get(MetricsPoller.FLUSH_QUEUE),
                    s.get(MetricsPoller.FLUSHED),
                    stable > 0 ? "still" : "moving")));
  }

  /** The future's value, a failure thrown as its own cause. */
  /** The benchmark clients' transport: {@code clientThreads} event loops, one connection a peer. */
  static TransportContext context(String id, int clientThreads) {
    return new TransportContext(
        new TransportConf(
            SluiceConf.empty()
                .with(TransportOptions.CLIENT_THREADS, String.valueOf(clientThreads))
                .with(TransportOptions.CONNECTIONS_PER_PEER, "1")),
        id,
        NettyTransports.pooledAllocator(Runtime.getRuntime().availableProcessors()));
  }

  static void registerApp(TransportClient admin, String appId) throws Exception {
    await(
        admin.request(
            new RegisterApplicationRequest(
                TransportClient.nextRequestId(),
                appId,
                System.getProperty("user.name", "benchmark")),
            StatusResponse.class));
  }

  static void unregisterApp(TransportClient admin, String appId) throws Exception {
    await(
        admin.request(
            new UnregisterApplicationRequest(TransportClient.nextRequestId(), appId),
            StatusResponse.class));
  }

  static <T> T await(CompletableFuture<T> future) throws Exception {
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  /** Runs the task for 0..n-1, each on its own thread; waits for all, throws the first error. */
  static void all(ExecutorService threads, int n, Task task) throws Exception {
    List<Future<Void>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int item = i;
      futures.add(
          threads.submit(
              () -> {
                task.run(item);
                return null;
              }));
    }
    for (Future<Void> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        futures.forEach(other -> other.cancel(true));
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }
  }

  @FunctionalInterface
  interface Task {
    void run(int item) throws Exception;
  }
}
