package io.sluice.benchmark.transport;

import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One measured run against the sink server: opens its own connections, pushes on all of them for a
 * warm-up and then for the measured seconds, and reads the rate from the server's counters, so only
 * bytes that arrived count, and the JVM's CPU over the same seconds.
 */
final class PushRun {
  private final TransportClientFactory clients;
  private final SinkHandler sink;
  private final String host;
  private final int port;

  PushRun(TransportClientFactory clients, SinkHandler sink, String host, int port) {
    this.clients = clients;
    this.sink = sink;
    this.host = host;
    this.port = port;
  }

  /** Body bytes and blocks per second that reached the server. */
  Rate run(int connections, Supplier<PushWorkload> workloads, int warmupSeconds, int seconds)
      throws IOException, InterruptedException {
    List<TransportClient> opened = new ArrayList<>();
    List<PipelinedPusher> pushers = new ArrayList<>();
    try {
      for (int i = 0; i < connections; i++) {
        TransportClient client = clients.createUnpooledClient(host, port);
        opened.add(client);
        pushers.add(new PipelinedPusher(client, workloads.get(), "bench-push-" + i));
      }
      pushers.forEach(PipelinedPusher::start);
      Thread.sleep(warmupSeconds * 1000L);
      SinkHandler.Counts before = sink.counts();
      long start = System.nanoTime();
      long cpuBefore = processCpuNanos();
      Thread.sleep(seconds * 1000L);
      SinkHandler.Counts received = sink.counts().minus(before);
      double cpuSeconds = (processCpuNanos() - cpuBefore) / 1e9;
      double elapsed = (System.nanoTime() - start) / 1e9;
      stopAll(pushers);
      return new Rate(
          received.bodyBytes() / elapsed,
          received.blocks() / elapsed,
          cpuSeconds / (received.bodyBytes() / (double) (1L << 30)));
    } finally {
      opened.forEach(TransportClient::close);
    }
  }

  /** Stops every pusher even when one of them failed, then reports the first failure. */
  private static void stopAll(List<PipelinedPusher> pushers) throws InterruptedException {
    IllegalStateException first = null;
    for (PipelinedPusher pusher : pushers) {
      try {
        pusher.stop();
      } catch (IllegalStateException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** The JVM's CPU time: client and server both run here. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * @param cpuSecondsPerGib CPU of client and server together per GiB of bodies received (over
   *     every message for the small-message runs)
   */
  record Rate(double bytesPerSecond, double blocksPerSecond, double cpuSecondsPerGib) {}
}
