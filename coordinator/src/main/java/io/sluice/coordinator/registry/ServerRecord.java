package io.sluice.coordinator.registry;

import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerStatus;

/**
 * One registered server: its latest heartbeat and when it arrived (by the coordinator's clock,
 * never the server's). The record of a server id lives as long as the server stays in the registry;
 * its report is replaced by each heartbeat.
 */
public final class ServerRecord {
  private final String id;
  private final long registeredMillis;
  private volatile Report report;

  ServerRecord(ServerStatus status, String node, long nowMillis) {
    this.id = status.serverId();
    this.registeredMillis = nowMillis;
    this.report = new Report(status, node, nowMillis);
  }

  public String id() {
    return id;
  }

  /** The latest heartbeat's content. */
  public ServerStatus status() {
    return report.status;
  }

  /**
   * The machine the server runs on, from the latest heartbeat: the node it named, or its host. A
   * partition's copies go to servers of different nodes.
   */
  public String node() {
    return report.node;
  }

  /** Where clients reach the server, from the latest heartbeat. */
  public ServerAddress address() {
    return report.address;
  }

  /** When the latest heartbeat arrived, coordinator clock. */
  public long lastHeartbeatMillis() {
    return report.receivedMillis;
  }

  public long registeredMillis() {
    return registeredMillis;
  }

  /** Whether the server can store anything: it reports no disks, or at least one healthy disk. */
  public boolean hasHealthyDisk() {
    return report.hasHealthyDisk;
  }

  /**
   * Takes a new heartbeat; returns the previous status. Callers serialize updates of one record
   * (heartbeats of a server may arrive on several connections at once).
   */
  ServerStatus update(ServerStatus status, String node, long nowMillis) {
    ServerStatus previous = report.status;
    report = new Report(status, node, nowMillis);
    return previous;
  }

  /** One heartbeat with what is derived from it, published at once so readers see it whole. */
  private static final class Report {
    final ServerStatus status;
    final String node;
    final ServerAddress address;
    final long receivedMillis;
    final boolean hasHealthyDisk;

    Report(ServerStatus status, String node, long receivedMillis) {
      this.status = status;
      this.node = node;
      this.address = new ServerAddress(status.serverId(), status.host(), status.dataPort());
      this.receivedMillis = receivedMillis;
      this.hasHealthyDisk =
          status.disks().isEmpty() || status.disks().stream().anyMatch(DiskStatus::healthy);
    }
  }
}
