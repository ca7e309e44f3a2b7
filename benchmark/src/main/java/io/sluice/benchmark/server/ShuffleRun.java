package io.sluice.benchmark.server;

import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One measured run against a running server: registers a shuffle, has {@code clients} map tasks push
 * their shares of the bytes and commit, waits until the server has flushed what it flushes, reads the
 * whole shuffle back with as many readers, verifies it, and deletes the shuffle. The server's
 * metrics are sampled throughout for peaks, and read at the phases' ends for rates.
 */
final class ShuffleRun {
  static final int PARTITIONS = 64;
  private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(5);

  private final ServerProcess server;
  private final TransportClientFactory connections;
  private final RandomPayload payload;
  private final ScheduledExecutorService retryTimer;
  private final String appId;
  private final int sampleMillis;

  ShuffleRun(ServerProcess server, TransportClientFactory connections, RandomPayload payload,
      ScheduledExecutorService retryTimer, String appId, int sampleMillis) {
    this.server = server;
    this.connections = connections;
    this.payload = payload;
    this.retryTimer = retryTimer;
    this.appId = appId;
    this.sampleMillis = sampleMillis;
  }

  RunResult run(int shuffleId, int clients, long totalBytes) throws Exception {
    List<TransportClient> opened = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(clients, r -> {
      Thread t = new Thread(r, "bench-client");
      t.setDaemon(true);
      return t;
    });
    try (MetricsPoller metrics = new MetricsPoller(server.httpPort(), sampleMillis)) {
      for (int i = 0; i < clients; i++) {
        opened.add(connections.createUnpooledClient(ServerProcess.HOST, server.port()));
      }
      TransportClient admin = opened.get(0);
      Requests.await(admin.request(new RegisterShuffleRequest(TransportClient.nextRequestId(),
          appId, shuffleId, PARTITIONS, new int[0]), StatusResponse.class));

      List<PushClient> pushers = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        long share = totalBytes / clients + (i < totalBytes % clients ? 1 : 0);
        pushers.add(new PushClient(opened.get(i), payload, retryTimer, appId, shuffleId,
            PARTITIONS, i, share));
      }
      MetricsScrape before = metrics.scrape();
      CpuSnapshot cpu0 = CpuSnapshot.take();
      Instant ingestStart = Instant.now();
      metrics.start();
      all(threads, pushers, p -> {
        p.push();
        return null;
      });
      long acked = System.nanoTime();
      all(threads, pushers, p -> {
        p.commit();
        return null;
      });
      MetricsScrape settled = metrics.awaitFlushSettled(SETTLE_TIMEOUT);
      MetricsScrape ingestEnd = metrics.scrape();
      MetricsPoller.Refusals refusals = metrics.refusals();
      CpuSnapshot cpu1 = CpuSnapshot.take();
      Instant readStart = Instant.now();

      List<BlockDescriptor> acknowledged = new ArrayList<>();
      long retries = 0;
      long retriedBytes = 0;
      int mostRefusals = 0;
      long longestWait = 0;
      for (PushClient p : pushers) {
        acknowledged.addAll(p.acknowledged());
        retries += p.retries();
        retriedBytes += p.retriedBytes();
        mostRefusals = Math.max(mostRefusals, p.mostRefusals());
        longestWait = Math.max(longestWait, p.longestWaitNanos());
      }
      ExpectedBlocks expected = new ExpectedBlocks(acknowledged);
      ReadTally tally = new ReadTally();
      long[] attempts = new long[clients];
      for (int i = 0; i < clients; i++) {
        attempts[i] = i;
      }
      List<Integer> readers = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        readers.add(i);
      }
      all(threads, readers, reader -> {
        PartitionReader partitions = new PartitionReader(opened.get(reader), appId, shuffleId,
            attempts, expected, tally);
        for (int p = reader; p < PARTITIONS; p += clients) {
          partitions.read(p);
        }
        return null;
      });
      MetricsScrape readEnd = metrics.scrape();
      CpuSnapshot cpu2 = CpuSnapshot.take();
      Instant readStop = Instant.now();
      MetricsPoller.Peaks peaks = metrics.peaks().with(readEnd);

      Requests.await(admin.request(new UnregisterShuffleRequest(TransportClient.nextRequestId(),
          appId, shuffleId), StatusResponse.class));

      long t0 = before.nanoTime();
      return new RunResult(clients, expected.bytes(), expected.blocks(), retries, retriedBytes,
          mostRefusals, seconds(longestWait),
          seconds(acked - t0),
          seconds(Math.max(settled.nanoTime(), acked) - t0),
          seconds(ingestEnd.nanoTime() - t0),
          seconds(readEnd.nanoTime() - ingestEnd.nanoTime()),
          (long) delta(ServerMetricNames.FLUSHED, before, ingestEnd),
          (long) delta(ServerMetricNames.PUSHED, before, ingestEnd),
          delta(ServerMetricNames.CPU_SECONDS, before, ingestEnd),
          delta(ServerMetricNames.CPU_SECONDS, ingestEnd, readEnd),
          cpu1.benchmarkCoresSince(cpu0), cpu2.benchmarkCoresSince(cpu1),
          cpu1.machineCoresSince(cpu0), cpu2.machineCoresSince(cpu1),
          delta(ServerMetricNames.GC_SECONDS, before, readEnd),
          (long) delta(ServerMetricNames.GC_COUNT, before, readEnd),
          (long) (readEnd.labelled(ServerMetricNames.READ, "source=\"memory\"")
              - before.labelled(ServerMetricNames.READ, "source=\"memory\"")),
          (long) (readEnd.labelled(ServerMetricNames.READ, "source=\"disk\"")
              - before.labelled(ServerMetricNames.READ, "source=\"disk\"")),
          RunResult.ReadSummary.of(tally), peaks, refusals, sampleMillis,
          List.of(new JfrProfile.Window(ingestStart, readStart),
              new JfrProfile.Window(readStart, readStop)));
    } finally {
      threads.shutdownNow();
      opened.forEach(TransportClient::close);
    }
  }

  private static double delta(String metric, MetricsScrape from, MetricsScrape to) {
    return to.sum(metric) - from.sum(metric);
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  /** Runs the task for each item on a thread of its own, waits for all, throws the first failure. */
  private static <T> void all(ExecutorService threads, List<T> items, Task<T> task)
      throws Exception {
    List<Future<Void>> futures = new ArrayList<>();
    for (T item : items) {
      Callable<Void> call = () -> task.run(item);
      futures.add(threads.submit(call));
    }
    for (Future<Void> f : futures) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        futures.forEach(other -> other.cancel(true));
        if (e.getCause() instanceof Exception cause) {
          throw cause;
        }
        throw e;
      }
    }
  }

  @FunctionalInterface
  private interface Task<T> {
    Void run(T item) throws Exception;
  }
}
