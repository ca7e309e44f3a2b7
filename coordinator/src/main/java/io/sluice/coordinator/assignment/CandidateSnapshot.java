package io.sluice.coordinator.assignment;

import io.sluice.coordinator.registry.ServerRecord;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The servers that take new work, with their hosts numbered, as of one registry version. Rebuilt only
 * when the registry or the exclusions change, or when one of its servers would turn stale, never per
 * heartbeat: load figures are read live from the records at each request.
 */
final class CandidateSnapshot {
  final ServerRecord[] servers;
  final int[] hosts;
  final int hostCount;
  private final long registryVersion;
  private final long exclusionVersion;
  private final long validUntilMillis;

  private CandidateSnapshot(ServerRecord[] servers, int[] hosts, int hostCount,
      long registryVersion, long exclusionVersion, long validUntilMillis) {
    this.servers = servers;
    this.hosts = hosts;
    this.hostCount = hostCount;
    this.registryVersion = registryVersion;
    this.exclusionVersion = exclusionVersion;
    this.validUntilMillis = validUntilMillis;
  }

  static CandidateSnapshot build(ServerRegistry registry, long nowMillis) {
    // Versions are read first: a change during the scan makes the next request rebuild again.
    long registryVersion = registry.version();
    long exclusionVersion = registry.exclusions().version();
    List<ServerRecord> eligible = new ArrayList<>(registry.size());
    List<Integer> hostOfServer = new ArrayList<>(registry.size());
    Map<String, Integer> hostNumbers = new HashMap<>();
    long validUntil = Long.MAX_VALUE;
    for (ServerRecord record : registry.servers()) {
      if (!registry.condition(record, nowMillis).takesNewWork()) {
        continue;
      }
      eligible.add(record);
      hostOfServer.add(hostNumbers.computeIfAbsent(record.status().host(), h -> hostNumbers.size()));
      validUntil = Math.min(validUntil, registry.staleAtMillis(record));
    }
    int[] hosts = new int[hostOfServer.size()];
    for (int i = 0; i < hosts.length; i++) {
      hosts[i] = hostOfServer.get(i);
    }
    return new CandidateSnapshot(eligible.toArray(new ServerRecord[0]), hosts, hostNumbers.size(),
        registryVersion, exclusionVersion, validUntil);
  }

  boolean isCurrent(ServerRegistry registry, long nowMillis) {
    return registryVersion == registry.version()
        && exclusionVersion == registry.exclusions().version()
        && nowMillis < validUntilMillis;
  }
}
