package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.RequestRefusedException;
import io.sluice.coordinator.registry.ServerCondition;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Decides which servers hold a new shuffle's partitions.
 *
 * <ol>
 *   <li>Candidates: the servers that take new work (heart-beating, ACTIVE, a healthy disk, not
 *       excluded) and carry the requested tags. Each weighs its free push memory divided by {@code
 *       1 + partitions / coordinator.assignment.load.half.partitions}, where partitions are those
 *       it reports plus those assigned to it here and not yet reported.
 *   <li>The heaviest {@code coordinator.assignment.max.servers.per.shuffle} are chosen (ties to the
 *       smaller server id), swapping in servers of other hosts when replicas need more hosts.
 *   <li>The copies (partitions times copies per partition) are split among them in proportion to
 *       their weights, each partition's copies on different hosts ({@link CopyLayout}).
 * </ol>
 *
 * <p>The candidates come from a {@link CandidateSnapshot}, rebuilt at once when eligibility changes
 * and at most every {@code coordinator.assignment.refresh.interval} for load figures; {@link
 * #refresh} rebuilds it off the request path. A request scans flat arrays and sorts only the few
 * servers it keeps. The result depends only on the snapshot's content and the pending partitions,
 * never on arrival order or hashing, so two coordinators that heard the same heartbeats answer
 * alike. Requests are served one at a time: each one's choice is load for the next.
 */
public final class ShuffleAssigner {
  private final ServerRegistry registry;
  private final int maxServersPerShuffle;
  private final double loadHalfPartitions;
  private final long refreshMillis;
  private final PendingLoad pending;
  private CandidateSnapshot snapshot;
  private double[] weights = new double[0];

  /**
   * @param maxServersPerShuffle {@code coordinator.assignment.max.servers.per.shuffle}
   * @param loadHalfPartitions {@code coordinator.assignment.load.half.partitions}
   * @param pendingExpiryMillis {@code coordinator.assignment.pending.expiry}
   * @param refreshMillis {@code coordinator.assignment.refresh.interval}
   */
  public ShuffleAssigner(
      ServerRegistry registry,
      int maxServersPerShuffle,
      int loadHalfPartitions,
      long pendingExpiryMillis,
      long refreshMillis) {
    if (maxServersPerShuffle < 1
        || loadHalfPartitions < 1
        || pendingExpiryMillis < 0
        || refreshMillis < 0) {
      throw new IllegalArgumentException(
          "invalid assignment settings: maxServersPerShuffle="
              + maxServersPerShuffle
              + ", loadHalfPartitions="
              + loadHalfPartitions
              + ", pendingExpiryMillis="
              + pendingExpiryMillis
              + ", refreshMillis="
              + refreshMillis);
    }
    this.registry = registry;
    this.maxServersPerShuffle = maxServersPerShuffle;
    this.loadHalfPartitions = loadHalfPartitions;
    this.refreshMillis = refreshMillis;
    this.pending = new PendingLoad(pendingExpiryMillis);
  }

  /**
   * Assigns {@code partitions} partitions with {@code copies} copies each (1 = no replica) to
   * servers carrying every tag of {@code tags}, none of {@code excluded}. The numbers must have
   * passed {@link AssignmentLimits}.
   *
   * @throws RequestRefusedException NOT_ENOUGH_SERVERS when fewer than {@code copies} servers
   *     qualify
   */
  public synchronized Assignment assign(
      int partitions, int copies, List<String> tags, Collection<String> excluded) {
    if (partitions < 1 || copies < 1) {
      throw new IllegalArgumentException(
          "partitions and copies must be positive: " + partitions + ", " + copies);
    }
    long now = registry.clock().millis();
    if (snapshot == null || !snapshot.isCurrent(registry, now, refreshMillis)) {
      install(CandidateSnapshot.build(registry, now), now);
    } else {
      expirePending(now);
    }
    Candidates candidates = candidates(tags, excluded);
    if (candidates.size < copies) {
      throw notEnoughServers(candidates.size, copies, tags);
    }
    int[] chosen = TopCandidates.select(candidates, Math.max(maxServersPerShuffle, copies));
    if (copies > 1) {
      chosen = HostSpread.ensureHosts(candidates, chosen, copies);
    }
    double[] chosenWeights = new double[chosen.length];
    int[] hostOf = new int[chosen.length];
    for (int i = 0; i < chosen.length; i++) {
      chosenWeights[i] = candidates.weights[chosen[i]];
      hostOf[i] = candidates.host(chosen[i]);
    }
    PartitionChains layout = CopyLayout.build(partitions, copies, chosenWeights, hostOf);
    return answer(chosen, layout, now);
  }

  /**
   * Rebuilds the candidate snapshot if it is out of date, scanning the registry outside the lock so
   * that requests wait only for the swap. The coordinator's maintenance thread calls it, so that
   * requests seldom pay for a rebuild.
   */
  public void refresh() {
    long now = registry.clock().millis();
    CandidateSnapshot current;
    synchronized (this) {
      current = snapshot;
    }
    if (current != null && current.isCurrent(registry, now, refreshMillis)) {
      return;
    }
    CandidateSnapshot fresh = CandidateSnapshot.build(registry, now);
    synchronized (this) {
      if (snapshot == current) {
        install(fresh, now);
      }
    }
  }

  /** Partitions assigned here and not yet reported, per server id (servers with none left out). */
  public synchronized Map<String, Long> pendingPartitions() {
    expirePending(registry.clock().millis());
    return pending.totals();
  }

  private Candidates candidates(List<String> tags, Collection<String> excluded) {
    CandidateSnapshot snap = snapshot;
    int n = snap.size();
    if (weights.length < n) {
      weights = new double[n];
    }
    int size = 0;
    for (int i = 0; i < n; i++) {
      if (!tags.isEmpty() && !snap.tags.get(i).containsAll(tags)
          || !excluded.isEmpty() && excluded.contains(snap.ids[i])) {
        weights[i] = -1;
        continue;
      }
      weights[i] = snap.free[i] / (1.0 + (snap.held[i] + snap.pending[i]) / loadHalfPartitions);
      size++;
    }
    return new Candidates(snap, weights, size);
  }

  /** Makes {@code fresh} current, with the pending partitions its load figures do not show. */
  private void install(CandidateSnapshot fresh, long now) {
    // The fresh arrays start without pending partitions; they are filled from what remains.
    pending.expire(now, (id, partitions) -> {});
    snapshot = fresh;
    for (String id : List.copyOf(pending.serverIds())) {
      int i = fresh.indexOf(id);
      if (i >= 0) {
        pending.reported(id, fresh.held[i]);
        fresh.pending[i] = pending.of(id);
      }
    }
  }

  private void expirePending(long now) {
    CandidateSnapshot snap = snapshot;
    pending.expire(
        now,
        (id, partitions) -> {
          int i = snap == null ? -1 : snap.indexOf(id);
          if (i >= 0) {
            snap.pending[i] -= partitions;
          }
        });
  }

  private Assignment answer(int[] chosen, PartitionChains layout, long now) {
    CandidateSnapshot snap = snapshot;
    long[] copiesAt = layout.copiesPerServer(chosen.length);
    int[] indexOfPosition = new int[chosen.length];
    List<ServerAddress> servers = new ArrayList<>();
    for (int position = 0; position < chosen.length; position++) {
      if (copiesAt[position] == 0) {
        continue;
      }
      int server = chosen[position];
      indexOfPosition[position] = servers.size();
      servers.add(snap.records[server].address());
      pending.add(snap.ids[server], snap.held[server], now, copiesAt[position]);
      snap.pending[server] += copiesAt[position];
    }
    return new Assignment(List.copyOf(servers), layout.renumber(indexOfPosition));
  }

  private RequestRefusedException notEnoughServers(int qualifying, int copies, List<String> tags) {
    Map<ServerCondition, Integer> counts = registry.countByCondition();
    StringBuilder message = new StringBuilder();
    message.append(
        copies == 1
            ? "no server"
            : copies
                + " copies of each partition need "
                + copies
                + " servers, but "
                + (qualifying == 0
                    ? "no server"
                    : "only " + qualifying + " server" + (qualifying == 1 ? "" : "s")));
    message.append(" can take new work");
    if (!tags.isEmpty()) {
      message.append(" with tags ").append(tags);
    }
    message.append(". Registered: ").append(registry.size());
    for (Map.Entry<ServerCondition, Integer> e : counts.entrySet()) {
      message.append(", ").append(e.getValue()).append(' ').append(e.getKey().name().toLowerCase());
    }
    message
        .append(" (servers are stale after ")
        .append(registry.timeoutMillis())
        .append(" ms without heartbeat, ")
        .append(CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT.key())
        .append(')');
    return new RequestRefusedException(StatusCode.NOT_ENOUGH_SERVERS, message.toString());
  }
}
