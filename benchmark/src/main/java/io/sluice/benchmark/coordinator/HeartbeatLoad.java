package io.sluice.benchmark.coordinator;

import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plays a fleet heart-beating to one coordinator: every server on a connection of its own (as real
 * servers are), each beating once per second, the beats spread evenly over the second in 10 ms
 * slices.
 */
final class HeartbeatLoad implements AutoCloseable {
  private static final int SLICES_PER_SECOND = 100;

  private final SyntheticCluster cluster;
  private final List<TransportClient> connections = new ArrayList<>();
  private final AtomicLong failures = new AtomicLong();

  HeartbeatLoad(
      SyntheticCluster cluster,
      TransportClientFactory factory,
      String host,
      int port,
      int connectionCount)
      throws Exception {
    this.cluster = cluster;
    for (int i = 0; i < connectionCount; i++) {
      connections.add(factory.createUnpooledClient(host, port));
    }
  }

  /** Sends every server's heartbeat once, all at once, and waits for the answers. */
  void burst() throws Exception {
    List<CompletableFuture<StatusResponse>> answers = new ArrayList<>(cluster.size());
    for (int i = 0; i < cluster.size(); i++) {
      answers.add(send(i));
    }
    CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
  }

  /** Beats at 1 Hz per server for {@code seconds}; returns the heartbeats sent. */
  long run(int seconds) throws Exception {
    int servers = cluster.size();
    long start = System.nanoTime();
    long sent = 0;
    List<CompletableFuture<StatusResponse>> pending = new ArrayList<>();
    for (int slice = 0; slice < seconds * SLICES_PER_SECOND; slice++) {
      long due = start + slice * (1_000_000_000L / SLICES_PER_SECOND);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      int from = (int) ((long) servers * (slice % SLICES_PER_SECOND) / SLICES_PER_SECOND);
      int to = (int) ((long) servers * (slice % SLICES_PER_SECOND + 1) / SLICES_PER_SECOND);
      for (int i = from; i < to; i++) {
        pending.add(send(i));
        sent++;
      }
    }
    CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
    return sent;
  }

  long failures() {
    return failures.get();
  }

  private CompletableFuture<StatusResponse> send(int server) {
    TransportClient connection = connections.get(server % connections.size());
    return connection
        .request(
            new ServerHeartbeatRequest(TransportClient.nextRequestId(), cluster.next(server)),
            StatusResponse.class)
        .whenComplete(
            (ok, e) -> {
              if (e != null) {
                failures.incrementAndGet();
              }
            });
  }

  @Override
  public void close() {
    connections.forEach(TransportClient::close);
  }
}
