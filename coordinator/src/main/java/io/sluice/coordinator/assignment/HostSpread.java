package io.sluice.coordinator.assignment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Makes a shuffle's chosen servers span hosts, so that a partition's copies can live apart. */
final class HostSpread {
  private HostSpread() {}

  /**
   * When the chosen servers (best first) sit on fewer than {@code copies} hosts and other
   * qualifying servers sit elsewhere, swaps the worst chosen servers of crowded hosts for the best
   * servers of the missing hosts. Returns the (possibly new) choice, best first.
   */
  static int[] ensureHosts(Candidates candidates, int[] chosen, int copies) {
    int hostCount = candidates.snapshot.hostCount;
    boolean[] covered = new boolean[hostCount];
    int[] perHost = new int[hostCount];
    int hosts = 0;
    for (int index : chosen) {
      int host = candidates.host(index);
      if (!covered[host]) {
        covered[host] = true;
        hosts++;
      }
      perHost[host]++;
    }
    if (hosts >= copies) {
      return chosen;
    }
    int[] bestOnHost = new int[hostCount];
    Arrays.fill(bestOnHost, -1);
    for (int i = 0; i < candidates.length(); i++) {
      if (!candidates.qualifies(i)) {
        continue;
      }
      int host = candidates.host(i);
      if (!covered[host] && (bestOnHost[host] < 0 || candidates.better(i, bestOnHost[host]))) {
        bestOnHost[host] = i;
      }
    }
    List<Integer> extra = new ArrayList<>();
    for (int best : bestOnHost) {
      if (best >= 0) {
        extra.add(best);
      }
    }
    if (extra.isEmpty()) {
      return chosen;
    }
    int[] newcomers =
        TopCandidates.sorted(candidates, extra.stream().mapToInt(Integer::intValue).toArray());
    int[] result = chosen.clone();
    int next = 0;
    int needed = copies - hosts;
    for (int slot = result.length - 1; slot >= 0 && next < newcomers.length && needed > 0; slot--) {
      int host = candidates.host(result[slot]);
      if (perHost[host] > 1) {
        perHost[host]--;
        result[slot] = newcomers[next++];
        needed--;
      }
    }
    return TopCandidates.sorted(candidates, result);
  }
}
