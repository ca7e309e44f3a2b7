package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.ManualClock;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.registry.ServerRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A registry on a manual clock and an assigner over it. */
final class AssignerFixture {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  final ManualClock clock = new ManualClock(1_000_000);
  final ExclusionList exclusions = new ExclusionList();
  final ServerRegistry registry = new ServerRegistry(clock, TIMEOUT, exclusions);
  final ShuffleAssigner assigner;

  AssignerFixture(int maxServersPerShuffle) {
    this(maxServersPerShuffle, 1000);
  }

  AssignerFixture(int maxServersPerShuffle, int loadHalfPartitions) {
    // Refresh interval 0: every request sees the latest heartbeats, as a test expects.
    assigner = new ShuffleAssigner(registry, maxServersPerShuffle, loadHalfPartitions, 60_000, 0);
  }

  void heartbeat(ServerStatus... statuses) {
    for (ServerStatus status : statuses) {
      registry.heartbeat(status);
    }
  }

  Assignment assign(int partitions, int copies) {
    return assigner.assign(partitions, copies, List.of(), java.util.Set.of());
  }

  /** Copies (all levels) per server id. */
  static Map<String, Integer> copiesById(Assignment assignment) {
    Map<String, Integer> counts = new HashMap<>();
    long[] copies = assignment.copiesPerServer();
    for (int i = 0; i < copies.length; i++) {
      counts.put(assignment.servers().get(i).serverId(), Math.toIntExact(copies[i]));
    }
    return counts;
  }

  /** Primaries per server id. */
  static Map<String, Integer> primariesById(Assignment assignment) {
    Map<String, Integer> counts = new HashMap<>();
    for (int[] servers : chains(assignment)) {
      counts.merge(assignment.servers().get(servers[0]).serverId(), 1, Integer::sum);
    }
    return counts;
  }

  static ServerAddress server(Assignment assignment, int partition, int copy) {
    return assignment.servers().get(assignment.chains().server(partition, copy));
  }

  /** Every partition's chain, primary first (for assignments small enough to list). */
  static int[][] chains(Assignment assignment) {
    int[][] chains = new int[assignment.partitionCount()][];
    for (int p = 0; p < chains.length; p++) {
      chains[p] = assignment.chains().chain(p);
    }
    return chains;
  }
}
