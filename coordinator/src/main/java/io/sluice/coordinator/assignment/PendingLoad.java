package io.sluice.coordinator.assignment;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;

/**
 * Partitions this coordinator assigned that the servers' heartbeats do not show yet. They count as
 * load, so that assignments made between two heartbeats do not all pick the same servers. A
 * server's pending partitions leave, oldest first, when its heartbeats report as many more
 * partitions held, or when they are older than the pending expiry: a server reports a partition
 * only once data for it arrives, which may be long after the assignment, or never.
 *
 * <p>Assignments to one server within one second share a batch, so that the batches kept are
 * bounded by servers times seconds of expiry however many requests arrive. One queue holds every
 * batch by age, so that expiring costs only what expires. Not thread-safe: the assigner's lock
 * guards it.
 */
final class PendingLoad {
  private static final long BATCH_MILLIS = 1000;

  private final long expiryMillis;
  private final Map<String, Server> servers = new HashMap<>();
  private final ArrayDeque<Batch> byAge = new ArrayDeque<>();

  PendingLoad(long expiryMillis) {
    this.expiryMillis = expiryMillis;
  }

  /** Counts {@code partitions} just assigned to a server that reports {@code held} partitions. */
  void add(String serverId, long held, long nowMillis, long partitions) {
    if (partitions <= 0) {
      return;
    }
    Server server = servers.computeIfAbsent(serverId, id -> new Server(id, held));
    Batch newest = server.batches.peekLast();
    if (newest != null && newest.assignedMillis / BATCH_MILLIS == nowMillis / BATCH_MILLIS) {
      newest.partitions += partitions;
    } else {
      Batch batch = new Batch(server, nowMillis, partitions);
      server.batches.addLast(batch);
      byAge.addLast(batch);
    }
    server.total += partitions;
  }

  /**
   * Drops the batches that expired by {@code nowMillis}; tells {@code dropped} how many partitions
   * each affected server lost.
   */
  void expire(long nowMillis, ObjLongConsumer<String> dropped) {
    while (!byAge.isEmpty() && nowMillis - byAge.peekFirst().assignedMillis >= expiryMillis) {
      Batch batch = byAge.removeFirst();
      if (batch.partitions == 0) {
        continue;
      }
      Server server = batch.server;
      // Batches of a server leave in age order, by expiry or by reports, so this is its oldest.
      server.batches.removeFirst();
      server.total -= batch.partitions;
      dropped.accept(server.id, batch.partitions);
      batch.partitions = 0;
      forgetIfEmpty(server);
    }
  }

  /** A server now reports {@code held} partitions: growth since its last report is not pending. */
  void reported(String serverId, long held) {
    Server server = servers.get(serverId);
    if (server == null) {
      return;
    }
    long left = held - server.lastHeld;
    server.lastHeld = held;
    while (left > 0 && !server.batches.isEmpty()) {
      Batch oldest = server.batches.peekFirst();
      long taken = Math.min(left, oldest.partitions);
      oldest.partitions -= taken;
      server.total -= taken;
      left -= taken;
      if (oldest.partitions == 0) {
        // Still queued by age, empty; expire() skips it.
        server.batches.removeFirst();
      }
    }
    forgetIfEmpty(server);
  }

  /** Pending partitions of a server, 0 when none. */
  long of(String serverId) {
    Server server = servers.get(serverId);
    return server == null ? 0 : server.total;
  }

  /** The servers with pending partitions. */
  Set<String> serverIds() {
    return servers.keySet();
  }

  /** Pending partitions per server id, in id order. */
  Map<String, Long> totals() {
    Map<String, Long> totals = new TreeMap<>();
    servers.forEach((id, server) -> totals.put(id, server.total));
    return totals;
  }

  private void forgetIfEmpty(Server server) {
    if (server.total == 0) {
      servers.remove(server.id);
    }
  }

  private static final class Server {
    final String id;
    final ArrayDeque<Batch> batches = new ArrayDeque<>();
    long total;
    long lastHeld;

    Server(String id, long held) {
      this.id = id;
      this.lastHeld = held;
    }
  }

  private static final class Batch {
    final Server server;
    final long assignedMillis;
    long partitions;

    Batch(Server server, long assignedMillis, long partitions) {
      this.server = server;
      this.assignedMillis = assignedMillis;
      this.partitions = partitions;
    }
  }
}
