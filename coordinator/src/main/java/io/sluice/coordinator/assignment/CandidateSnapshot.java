package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.registry.ServerRecord;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The servers that take new work and their load figures, copied out of the registry into flat
 * arrays so that a request scans thousands of servers without chasing a pointer per server.
 *
 * <p>It is rebuilt at once when eligibility changes (a server joins, leaves or changes state, an
 * exclusion changes, a server turns stale), and when heartbeats brought new load figures and it is
 * at least the refresh interval old. The pending partitions are the assigner's, kept up to date in
 * place under its lock.
 */
final class CandidateSnapshot {
  final ServerRecord[] records;
  final String[] ids;
  final int[] hosts;
  final int hostCount;
  final long[] free;
  final long[] held;
  final List<List<String>> tags;
  final long[] pending;
  private final Map<String, Integer> indexOfId;
  private final long registryVersion;
  private final long loadVersion;
  private final long exclusionVersion;
  private final long builtMillis;
  private final long validUntilMillis;

  private CandidateSnapshot(
      List<ServerRecord> eligible,
      List<ServerStatus> statuses,
      List<String> nodes,
      long registryVersion,
      long loadVersion,
      long exclusionVersion,
      long builtMillis,
      long validUntilMillis) {
    int n = eligible.size();
    this.records = eligible.toArray(new ServerRecord[0]);
    this.ids = new String[n];
    this.hosts = new int[n];
    this.free = new long[n];
    this.held = new long[n];
    this.tags = new ArrayList<>(n);
    this.pending = new long[n];
    this.indexOfId = new HashMap<>(2 * n);
    Map<String, Integer> hostNumbers = new HashMap<>();
    for (int i = 0; i < n; i++) {
      ServerStatus status = statuses.get(i);
      ids[i] = records[i].id();
      indexOfId.put(ids[i], i);
      // Copies are kept apart by node: the machine, which the host names unless told otherwise.
      Integer host = hostNumbers.get(nodes.get(i));
      if (host == null) {
        host = hostNumbers.size();
        hostNumbers.put(nodes.get(i), host);
      }
      hosts[i] = host;
      free[i] = Math.max(0, status.pushBufferCapacity() - status.pushBufferUsed());
      held[i] = status.partitionsHeld();
      tags.add(status.tags());
    }
    this.hostCount = hostNumbers.size();
    this.registryVersion = registryVersion;
    this.loadVersion = loadVersion;
    this.exclusionVersion = exclusionVersion;
    this.builtMillis = builtMillis;
    this.validUntilMillis = validUntilMillis;
  }

  static CandidateSnapshot build(ServerRegistry registry, long nowMillis) {
    // Versions are read first: a change during the scan makes the next request rebuild again.
    long registryVersion = registry.version();
    long loadVersion = registry.loadVersion();
    long exclusionVersion = registry.exclusions().version();
    List<ServerRecord> eligible = new ArrayList<>(registry.size());
    List<ServerStatus> statuses = new ArrayList<>(registry.size());
    List<String> nodes = new ArrayList<>(registry.size());
    long validUntil = Long.MAX_VALUE;
    for (ServerRecord record : registry.servers()) {
      if (registry.condition(record, nowMillis).takesNewWork()) {
        eligible.add(record);
        statuses.add(record.status());
        nodes.add(record.node());
        validUntil = Math.min(validUntil, registry.staleAtMillis(record));
      }
    }
    return new CandidateSnapshot(
        eligible,
        statuses,
        nodes,
        registryVersion,
        loadVersion,
        exclusionVersion,
        nowMillis,
        validUntil);
  }

  int size() {
    return records.length;
  }

  /** The index of a server, or -1 when it is not a candidate. */
  int indexOf(String serverId) {
    Integer index = indexOfId.get(serverId);
    return index == null ? -1 : index;
  }

  /** Whether eligibility is unchanged (and nobody turned stale) since the build. */
  boolean isEligibilityCurrent(ServerRegistry registry, long nowMillis) {
    return registryVersion == registry.version()
        && exclusionVersion == registry.exclusions().version()
        && nowMillis < validUntilMillis;
  }

  /** Whether this snapshot may still serve: eligibility current, load figures recent enough. */
  boolean isCurrent(ServerRegistry registry, long nowMillis, long refreshMillis) {
    return isEligibilityCurrent(registry, nowMillis)
        && (loadVersion == registry.loadVersion() || nowMillis - builtMillis < refreshMillis);
  }
}
