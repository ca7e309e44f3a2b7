package io.sluice.coordinator.registry;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.RequestRefusedException;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.exclusion.ExclusionReason;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shuffle servers this coordinator has heard from, built from their heartbeats alone, so that a
 * restarted coordinator (or a second one) rebuilds it within one heartbeat interval. Thread-safe:
 * heartbeats arrive on every event loop at once.
 *
 * <p>{@link #version()} grows whenever something that decides eligibility changes (a server joins
 * or leaves, its state, disk health, address or tags change); {@link #loadVersion()} with every
 * accepted heartbeat. Cached candidate lists rebuild at once on the first and now and then on the
 * second.
 */
public final class ServerRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(ServerRegistry.class);

  private final Clock clock;
  private final long timeoutMillis;
  private final ExclusionList exclusions;
  private final ConcurrentHashMap<String, ServerRecord> servers = new ConcurrentHashMap<>();
  private final AtomicLong version = new AtomicLong();
  private final AtomicLong loadVersion = new AtomicLong();

  public ServerRegistry(Clock clock, Duration heartbeatTimeout, ExclusionList exclusions) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeoutMillis = heartbeatTimeout.toMillis();
    this.exclusions = Objects.requireNonNull(exclusions, "exclusions");
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("heartbeat timeout must be positive: " + heartbeatTimeout);
    }
  }

  /**
   * Records a heartbeat.
   *
   * @throws RequestRefusedException INVALID_REQUEST for a heartbeat with garbage fields, or one
   *     that claims the id of another live server at a different address; the registry is unchanged
   */
  public void heartbeat(ServerStatus status) {
    heartbeat(status, status.host());
  }

  /**
   * As {@link #heartbeat(ServerStatus)}, from a server that names the node it runs on.
   *
   * @param node the machine: a partition's copies go to servers of different nodes
   */
  public void heartbeat(ServerStatus status, String node) {
    HeartbeatValidator.check(status);
    HeartbeatValidator.checkNode(status, node);
    long now = clock.millis();
    ServerRecord record = servers.get(status.serverId());
    if (record == null) {
      ServerRecord fresh = new ServerRecord(status, node, now);
      record = servers.putIfAbsent(status.serverId(), fresh);
      if (record == null) {
        version.incrementAndGet();
        loadVersion.incrementAndGet();
        LOG.info(
            "Server {} joined: {}:{} on node {}, state {}, push memory {} MiB, tags {}",
            status.serverId(),
            status.host(),
            status.dataPort(),
            node,
            status.state(),
            status.pushBufferCapacity() >> 20,
            status.tags());
        return;
      }
    }
    synchronized (record) {
      ServerStatus previous = record.status();
      boolean moved =
          !previous.host().equals(status.host()) || previous.dataPort() != status.dataPort();
      if (moved && now - record.lastHeartbeatMillis() < timeoutMillis) {
        throw new RequestRefusedException(
            StatusCode.INVALID_REQUEST,
            "server id "
                + status.serverId()
                + " is in use by the live server at "
                + previous.host()
                + ":"
                + previous.dataPort()
                + ", not "
                + status.host()
                + ":"
                + status.dataPort()
                + "; give each server its own server.id");
      }
      boolean wasHealthy = record.hasHealthyDisk();
      boolean otherNode = !record.node().equals(node);
      record.update(status, node, now);
      loadVersion.incrementAndGet();
      if (moved
          || otherNode
          || previous.state() != status.state()
          || wasHealthy != record.hasHealthyDisk()
          || !previous.tags().equals(status.tags())) {
        version.incrementAndGet();
        LOG.info(
            "Server {} changed: {}:{} on node {}, state {} (was {}), healthy disk {}, tags {}",
            status.serverId(),
            status.host(),
            status.dataPort(),
            node,
            status.state(),
            previous.state(),
            record.hasHealthyDisk(),
            status.tags());
      }
    }
  }

  /** Drops the servers whose last heartbeat is at least the timeout old; returns them. */
  public List<ServerRecord> expireStale() {
    long now = clock.millis();
    List<ServerRecord> dropped = new ArrayList<>();
    for (ServerRecord record : servers.values()) {
      if (isStale(record, now) && servers.remove(record.id(), record)) {
        dropped.add(record);
        version.incrementAndGet();
        exclusions.serverRemoved(record.id());
        LOG.warn(
            "Server {} at {}:{} sent no heartbeat for {} ms ({} = {} ms); dropped",
            record.id(),
            record.status().host(),
            record.status().dataPort(),
            now - record.lastHeartbeatMillis(),
            CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT.key(),
            timeoutMillis);
      }
    }
    return dropped;
  }

  /** What the server may do at {@code nowMillis}. */
  public ServerCondition condition(ServerRecord record, long nowMillis) {
    if (isStale(record, nowMillis)) {
      return ServerCondition.STALE;
    }
    ExclusionReason excluded = exclusions.reasonFor(record.id());
    if (excluded == ExclusionReason.DECOMMISSION) {
      return ServerCondition.DECOMMISSIONING;
    }
    if (excluded != null) {
      return ServerCondition.EXCLUDED;
    }
    ServerState state = record.status().state();
    if (state == ServerState.DECOMMISSIONING) {
      return ServerCondition.DECOMMISSIONING;
    }
    if (state == ServerState.UNHEALTHY || !record.hasHealthyDisk()) {
      return ServerCondition.UNHEALTHY;
    }
    return ServerCondition.ACTIVE;
  }

  /** The first moment the server counts as stale unless it heart-beats again. */
  public long staleAtMillis(ServerRecord record) {
    return record.lastHeartbeatMillis() + timeoutMillis;
  }

  /** Number of registered servers in each condition, every condition present. */
  public Map<ServerCondition, Integer> countByCondition() {
    long now = clock.millis();
    Map<ServerCondition, Integer> counts = new EnumMap<>(ServerCondition.class);
    for (ServerCondition c : ServerCondition.values()) {
      counts.put(c, 0);
    }
    for (ServerRecord record : servers.values()) {
      counts.merge(condition(record, now), 1, Integer::sum);
    }
    return counts;
  }

  public ServerRecord get(String serverId) {
    return servers.get(serverId);
  }

  public Collection<ServerRecord> servers() {
    return Collections.unmodifiableCollection(servers.values());
  }

  public int size() {
    return servers.size();
  }

  public long version() {
    return version.get();
  }

  /** Grows with every accepted heartbeat. */
  public long loadVersion() {
    return loadVersion.get();
  }

  public ExclusionList exclusions() {
    return exclusions;
  }

  public Clock clock() {
    return clock;
  }

  public long timeoutMillis() {
    return timeoutMillis;
  }

  private boolean isStale(ServerRecord record, long nowMillis) {
    return nowMillis - record.lastHeartbeatMillis() >= timeoutMillis;
  }
}
