package io.sluice.server.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Summary;
import io.prometheus.client.hotspot.BufferPoolsExports;
import io.prometheus.client.hotspot.GarbageCollectorExports;
import io.prometheus.client.hotspot.MemoryPoolsExports;
import io.prometheus.client.hotspot.ThreadExports;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The server's Prometheus metrics, in a registry of its own so that several servers can share a JVM
 * in tests. JVM metrics (GC time, memory pools, direct buffers, threads) come from the hotspot
 * exporters, the process's ({@code process_*}) from {@link ProcessExports}.
 */
public final class ServerMetrics {
  private final CollectorRegistry registry = new CollectorRegistry(true);

  private final Counter bytesPushed =
      Counter.build("sluice_server_pushed_bytes_total", "Bytes of blocks accepted from pushes")
          .register(registry);
  private final Counter blocksPushed =
      Counter.build("sluice_server_pushed_blocks_total", "Blocks accepted from pushes")
          .register(registry);
  private final Counter bytesReplicated =
      Counter.build(
              "sluice_server_replicated_bytes_total",
              "Bytes of pushed blocks this server forwarded to the next server of a replica chain")
          .register(registry);
  private final Counter pushRejections =
      Counter.build("sluice_server_push_rejections_total", "Pushes refused, by reason")
          .labelNames("reason")
          .register(registry);
  private final Counter pushWaits =
      Counter.build(
              "sluice_server_push_waits_total",
              "Pushes whose connection stopped reading until the push pool had room")
          .register(registry);
  private final Counter bytesReceivedInPlace =
      Counter.build(
              "sluice_server_push_bytes_received_in_place_total",
              "Bytes of pushes taken that the socket read straight into the push pool")
          .register(registry);
  private final Counter pushWaitExpiries =
      Counter.build(
              "sluice_server_push_wait_expiries_total",
              "Push waits that ended without room: the longest wait passed or the connection closed")
          .register(registry);
  private final Counter protocolErrors =
      Counter.build(
              "sluice_server_protocol_errors_total",
              "Connections closed for breaking the protocol, by status")
          .labelNames("status")
          .register(registry);
  private final Counter bytesRead =
      Counter.build("sluice_server_read_bytes_total", "Bytes served to readers, by source")
          .labelNames("source")
          .register(registry);
  private final Counter bytesFlushed =
      Counter.build("sluice_server_flushed_bytes_total", "Bytes written to local disks")
          .register(registry);
  private final Counter bytesFlushedToHdfs =
      Counter.build("sluice_server_hdfs_flushed_bytes_total", "Bytes written to the HDFS tier")
          .register(registry);
  private final Counter flushFailures =
      Counter.build(
              "sluice_server_flush_failures_total", "Flushes that could not write their blocks")
          .register(registry);
  private final Summary flushLatency =
      Summary.build("sluice_server_flush_seconds", "Time to write one partition's blocks to disk")
          .quantile(0.5, 0.05)
          .quantile(0.99, 0.01)
          .register(registry);
  private final Gauge flushQueue =
      Gauge.build("sluice_server_flush_queue", "Partition flushes queued or running")
          .register(registry);

  private final Counter partitionsRecovered =
      Counter.build(
              "sluice_server_recovered_partitions_total",
              "Partitions served again after a restart, from what the last clean stop recorded")
          .register(registry);
  private final Counter partitionsNotRecovered =
      Counter.build(
              "sluice_server_unrecovered_partitions_total",
              "Partitions the last clean stop recorded that could not be served again")
          .register(registry);

  public ServerMetrics() {
    new ProcessExports().register(registry);
    new GarbageCollectorExports().register(registry);
    new MemoryPoolsExports().register(registry);
    new BufferPoolsExports().register(registry);
    new ThreadExports().register(registry);
    new ThreadCpuExports().register(registry);
  }

  public CollectorRegistry registry() {
    return registry;
  }

  /** A gauge whose value is read when scraped. */
  public void gauge(String name, String help, DoubleSupplier value) {
    Gauge.build(name, help)
        .register(registry)
        .setChild(
            new Gauge.Child() {
              @Override
              public double get() {
                return value.getAsDouble();
              }
            });
  }

  public void pushed(long bytes, int blocks) {
    bytesPushed.inc(bytes);
    blocksPushed.inc(blocks);
  }

  public void replicated(long bytes) {
    bytesReplicated.inc(bytes);
  }

  public void pushRejected(String reason) {
    pushRejections.labels(reason).inc();
  }

  public void receivedInPlace(long bytes) {
    bytesReceivedInPlace.inc(bytes);
  }

  public void pushWaited() {
    pushWaits.inc();
  }

  public void pushWaitExpired() {
    pushWaitExpiries.inc();
  }

  public void protocolError(String status) {
    protocolErrors.labels(status).inc();
  }

  public void read(String source, long bytes) {
    bytesRead.labels(source).inc(bytes);
  }

  /**
   * @param toHdfs whether the blocks went to the HDFS tier rather than a local dir
   */
  public void flushed(long bytes, long nanos, boolean toHdfs) {
    (toHdfs ? bytesFlushedToHdfs : bytesFlushed).inc(bytes);
    flushLatency.observe(nanos / (double) TimeUnit.SECONDS.toNanos(1));
  }

  public void flushFailed() {
    flushFailures.inc();
  }

  public void flushQueued(int n) {
    flushQueue.set(n);
  }

  /** Partitions served again after a restart, and those of the record that could not be. */
  public void recovered(int served, int notServed) {
    partitionsRecovered.inc(served);
    partitionsNotRecovered.inc(notServed);
  }

  public double pushedBytes() {
    return bytesPushed.get();
  }

  public double flushedBytes() {
    return bytesFlushed.get();
  }
}
