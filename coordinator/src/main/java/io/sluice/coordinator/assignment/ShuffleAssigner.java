package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.RequestRefusedException;
import io.sluice.coordinator.registry.ServerCondition;
import io.sluice.coordinator.registry.ServerRecord;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides which servers hold a new shuffle's partitions.
 *
 * <ol>
 *   <li>Candidates: the servers that take new work (heart-beating, ACTIVE, a healthy disk, not
 *       excluded) and carry the requested tags. Each weighs its free push memory divided by
 *       {@code 1 + partitions / coordinator.assignment.load.half.partitions}, where partitions are
 *       those it reports plus those assigned to it here and not yet reported.
 *   <li>The heaviest {@code coordinator.assignment.max.servers.per.shuffle} are chosen (ties to the
 *       smaller server id), swapping in servers of other hosts when replicas need more hosts.
 *   <li>The copies (partitions times copies per partition) are split among them in proportion to
 *       their weights, each partition's copies on different hosts ({@link CopyLayout}).
 * </ol>
 *
 * <p>The result depends only on the registry's content and the pending partitions, never on arrival
 * order or hashing, so two coordinators that heard the same heartbeats answer alike. Requests are
 * served one at a time: each one's choice is load for the next.
 */
public final class ShuffleAssigner {
  private final ServerRegistry registry;
  private final int maxServersPerShuffle;
  private final double loadHalfPartitions;
  private final long pendingExpiryMillis;
  private CandidateSnapshot snapshot;

  /**
   * @param maxServersPerShuffle {@code coordinator.assignment.max.servers.per.shuffle}
   * @param loadHalfPartitions {@code coordinator.assignment.load.half.partitions}
   * @param pendingExpiryMillis {@code coordinator.assignment.pending.expiry}
   */
  public ShuffleAssigner(ServerRegistry registry, int maxServersPerShuffle, int loadHalfPartitions,
      long pendingExpiryMillis) {
    if (maxServersPerShuffle < 1 || loadHalfPartitions < 1 || pendingExpiryMillis < 0) {
      throw new IllegalArgumentException("invalid assignment settings: maxServersPerShuffle="
          + maxServersPerShuffle + ", loadHalfPartitions=" + loadHalfPartitions
          + ", pendingExpiryMillis=" + pendingExpiryMillis);
    }
    this.registry = registry;
    this.maxServersPerShuffle = maxServersPerShuffle;
    this.loadHalfPartitions = loadHalfPartitions;
    this.pendingExpiryMillis = pendingExpiryMillis;
  }

  /**
   * Assigns {@code partitions} partitions with {@code copies} copies each (1 = no replica) to servers
   * carrying every tag of {@code tags}. The numbers must have passed {@link AssignmentLimits}.
   *
   * @throws RequestRefusedException NOT_ENOUGH_SERVERS when fewer than {@code copies} servers qualify
   */
  public synchronized Assignment assign(int partitions, int copies, List<String> tags) {
    if (partitions < 1 || copies < 1) {
      throw new IllegalArgumentException("partitions and copies must be positive: " + partitions
          + ", " + copies);
    }
    long now = registry.clock().millis();
    if (snapshot == null || !snapshot.isCurrent(registry, now)) {
      snapshot = CandidateSnapshot.build(registry, now);
    }
    Candidates candidates = candidates(snapshot, tags, now);
    if (candidates.size < copies) {
      throw notEnoughServers(candidates.size, copies, tags);
    }
    int[] chosen = TopCandidates.select(candidates, Math.max(maxServersPerShuffle, copies));
    if (copies > 1) {
      chosen = HostSpread.ensureHosts(candidates, chosen, copies);
    }
    double[] weights = new double[chosen.length];
    int[] hostOf = new int[chosen.length];
    for (int i = 0; i < chosen.length; i++) {
      weights[i] = candidates.weights[chosen[i]];
      hostOf[i] = candidates.hosts[chosen[i]];
    }
    int[][] layout = CopyLayout.build(partitions, copies, weights, hostOf);
    return answer(candidates, chosen, layout, now);
  }

  private Candidates candidates(CandidateSnapshot snap, List<String> tags, long now) {
    int n = snap.servers.length;
    ServerRecord[] records = new ServerRecord[n];
    String[] ids = new String[n];
    double[] weights = new double[n];
    int[] hosts = new int[n];
    int size = 0;
    for (int i = 0; i < n; i++) {
      ServerRecord record = snap.servers[i];
      ServerStatus status = record.status();
      // A heartbeat may have changed the state since the snapshot; the next request rebuilds it.
      if (status.state() != ServerState.ACTIVE
          || (!tags.isEmpty() && !status.tags().containsAll(tags))) {
        continue;
      }
      long free = Math.max(0, status.pushBufferCapacity() - status.pushBufferUsed());
      long load = status.partitionsHeld() + record.pendingPartitions(now, pendingExpiryMillis);
      records[size] = record;
      ids[size] = record.id();
      weights[size] = free / (1.0 + load / loadHalfPartitions);
      hosts[size] = snap.hosts[i];
      size++;
    }
    return new Candidates(records, ids, weights, hosts, snap.hostCount, size);
  }

  private Assignment answer(Candidates candidates, int[] chosen, int[][] layout, long now) {
    int[] copiesAt = new int[chosen.length];
    for (int[] positions : layout) {
      for (int position : positions) {
        copiesAt[position]++;
      }
    }
    int[] indexOfPosition = new int[chosen.length];
    List<ServerAddress> servers = new ArrayList<>();
    for (int position = 0; position < chosen.length; position++) {
      if (copiesAt[position] == 0) {
        continue;
      }
      ServerRecord record = candidates.records[chosen[position]];
      indexOfPosition[position] = servers.size();
      servers.add(record.address());
      record.addPending(now, copiesAt[position]);
    }
    for (int[] positions : layout) {
      for (int c = 0; c < positions.length; c++) {
        positions[c] = indexOfPosition[positions[c]];
      }
    }
    return new Assignment(List.copyOf(servers), layout);
  }

  private RequestRefusedException notEnoughServers(int qualifying, int copies, List<String> tags) {
    Map<ServerCondition, Integer> counts = registry.countByCondition();
    StringBuilder message = new StringBuilder();
    message.append(copies == 1 ? "no server" : copies + " copies of each partition need "
        + copies + " servers, but " + (qualifying == 0 ? "no server" : "only " + qualifying
        + " server" + (qualifying == 1 ? "" : "s")));
    message.append(" can take new work");
    if (!tags.isEmpty()) {
      message.append(" with tags ").append(tags);
    }
    message.append(". Registered: ").append(registry.size());
    for (Map.Entry<ServerCondition, Integer> e : counts.entrySet()) {
      message.append(", ").append(e.getValue()).append(' ').append(e.getKey().name().toLowerCase());
    }
    message.append(" (servers are stale after ")
        .append(registry.timeoutMillis()).append(" ms without heartbeat, ")
        .append(CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT.key()).append(')');
    return new RequestRefusedException(StatusCode.NOT_ENOUGH_SERVERS, message.toString());
  }
}
