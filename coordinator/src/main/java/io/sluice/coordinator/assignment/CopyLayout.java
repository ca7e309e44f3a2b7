package io.sluice.coordinator.assignment;

/**
 * Lays a shuffle's copies onto the chosen servers (positions 0..n-1): which position holds copy
 * {@code r} of partition {@code p}.
 *
 * <p>Primaries follow the quotas round-robin (every server with quota left takes one per round), so
 * neighbouring partitions land on different servers. Each replica level starts as the primary layout
 * shifted by the level, which gives every server as many copies of each level as primaries, so that
 * the total stays proportional to the quotas. Where a copy would share a server with another copy of
 * its partition, or a host while a free host exists among the chosen servers, it is swapped with
 * another partition's copy of the same level (which keeps the counts), and when no nearby swap works,
 * moved to the next server that fits: distinct hosts come before exact proportions.
 */
final class CopyLayout {
  /** How far a conflicting copy looks for a swap partner before it is moved instead. */
  static final int SWAP_PROBES = 64;

  private final int partitions;
  private final int[] hostOf;
  private final int distinctHosts;
  private final int[][] levels;
  private int fallbackCursor;

  private CopyLayout(int partitions, int copies, int[] hostOf) {
    this.partitions = partitions;
    this.hostOf = hostOf;
    this.levels = new int[copies][];
    int hostCount = 0;
    for (int host : hostOf) {
      hostCount = Math.max(hostCount, host + 1);
    }
    boolean[] seen = new boolean[hostCount];
    int distinct = 0;
    for (int host : hostOf) {
      if (!seen[host]) {
        seen[host] = true;
        distinct++;
      }
    }
    this.distinctHosts = distinct;
  }

  /**
   * @param quotas primaries per position, summing to {@code partitions}
   * @param hostOf a host number per position
   * @param copies copies per partition; at most the number of positions
   * @return per partition, the positions of its copies, primary first
   */
  static int[][] build(int partitions, int copies, int[] quotas, int[] hostOf) {
    if (copies > quotas.length) {
      throw new IllegalArgumentException(copies + " copies need as many servers, got "
          + quotas.length);
    }
    CopyLayout layout = new CopyLayout(partitions, copies, hostOf);
    layout.levels[0] = roundRobin(partitions, quotas);
    for (int level = 1; level < copies; level++) {
      layout.placeLevel(level);
    }
    int[][] byPartition = new int[partitions][copies];
    for (int level = 0; level < copies; level++) {
      int[] positions = layout.levels[level];
      for (int p = 0; p < partitions; p++) {
        byPartition[p][level] = positions[p];
      }
    }
    return byPartition;
  }

  static int[] roundRobin(int partitions, int[] quotas) {
    int[] sequence = new int[partitions];
    int[] remaining = quotas.clone();
    int[] active = new int[quotas.length];
    int activeCount = 0;
    for (int i = 0; i < quotas.length; i++) {
      if (quotas[i] > 0) {
        active[activeCount++] = i;
      }
    }
    int next = 0;
    while (next < partitions) {
      int kept = 0;
      for (int i = 0; i < activeCount; i++) {
        int position = active[i];
        sequence[next++] = position;
        if (--remaining[position] > 0) {
          active[kept++] = position;
        }
      }
      activeCount = kept;
    }
    return sequence;
  }

  private void placeLevel(int level) {
    int[] primaries = levels[0];
    int[] positions = new int[partitions];
    for (int p = 0; p < partitions; p++) {
      positions[p] = primaries[(p + level) % partitions];
    }
    levels[level] = positions;
    for (int p = 0; p < partitions; p++) {
      if (!conflicts(level, p, positions[p])) {
        continue;
      }
      if (!swapAway(level, p)) {
        positions[p] = nextFitting(level, p);
      }
    }
  }

  private boolean swapAway(int level, int p) {
    int[] positions = levels[level];
    int probes = Math.min(partitions - 1, SWAP_PROBES);
    for (int k = 1; k <= probes; k++) {
      int q = (p + k) % partitions;
      if (!conflicts(level, p, positions[q]) && !conflicts(level, q, positions[p])) {
        int t = positions[p];
        positions[p] = positions[q];
        positions[q] = t;
        return true;
      }
    }
    return false;
  }

  private int nextFitting(int level, int p) {
    int n = hostOf.length;
    for (int k = 0; k < n; k++) {
      int candidate = (fallbackCursor + k) % n;
      if (!conflicts(level, p, candidate)) {
        fallbackCursor = (candidate + 1) % n;
        return candidate;
      }
    }
    throw new IllegalStateException("no server fits copy " + level + " of partition " + p);
  }

  /**
   * Whether {@code position} may not hold copy {@code level} of partition {@code p}: it holds an
   * earlier copy, or shares a host with one while the chosen servers span more hosts than copies
   * placed so far.
   */
  private boolean conflicts(int level, int p, int position) {
    boolean hostsMustDiffer = level < distinctHosts;
    for (int earlier = 0; earlier < level; earlier++) {
      int other = levels[earlier][p];
      if (other == position || (hostsMustDiffer && hostOf[other] == hostOf[position])) {
        return true;
      }
    }
    return false;
  }
}
