package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.PartitionChains;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lays a shuffle's copies onto the chosen servers (positions 0..n-1): which positions hold the
 * copies of each partition.
 *
 * <p>All {@code partitions x copies} copies are split among the servers in proportion to their
 * weights. Then they are written out as one list, host after host and, within a host, server after
 * server, and the list is cut into {@code copies} columns of {@code partitions} entries: partition
 * {@code p} takes entry {@code p} of every column. As long as no host holds more than {@code
 * partitions} copies, no host can appear twice in one partition's copies (two entries of one
 * partition are {@code partitions} apart in the list, and a host's run is shorter). So the split
 * caps every host at {@code partitions} copies, giving the excess to the others in proportion; with
 * fewer hosts than copies, servers take the place of hosts and copies are merely on distinct
 * servers.
 *
 * <p>Each server thus holds one contiguous run of partitions per column, which suits readers that
 * fetch ranges of neighbouring partitions. The primary role rotates with the partition number, so
 * that every server is primary for about a {@code 1/copies} share of what it holds.
 */
final class CopyLayout {
  private CopyLayout() {}

  /**
   * @param weights a weight per position
   * @param hostOf a host number per position
   * @param copies copies per partition; at most the number of positions
   * @return per partition, the positions of its copies, primary first, as runs: partition {@code
   *     p}'s copy {@code c} is entry {@code p} of column {@code (p + c) mod copies}
   */
  static PartitionChains build(int partitions, int copies, double[] weights, int[] hostOf) {
    int n = weights.length;
    if (copies > n) {
      throw new IllegalArgumentException(copies + " copies need as many servers, got " + n);
    }
    List<int[]> units = units(hostOf, copies);
    double[] unitWeights = new double[units.size()];
    int[] unitCaps = new int[units.size()];
    for (int u = 0; u < units.size(); u++) {
      for (int position : units.get(u)) {
        unitWeights[u] += weights[position];
      }
      unitCaps[u] = partitions;
    }
    long total = (long) partitions * copies;
    int[] unitShares = Quotas.split(total, unitWeights, unitCaps);
    Columns columns = new Columns(partitions, copies);
    for (int u = 0; u < units.size(); u++) {
      int[] members = units.get(u);
      double[] memberWeights = new double[members.length];
      int[] memberCaps = new int[members.length];
      for (int m = 0; m < members.length; m++) {
        memberWeights[m] = weights[members[m]];
        memberCaps[m] = partitions;
      }
      int[] memberShares = Quotas.split(unitShares[u], memberWeights, memberCaps);
      for (int m = 0; m < members.length; m++) {
        columns.append(members[m], memberShares[m]);
      }
    }
    return columns.build();
  }

  /**
   * The list of all copies, written out run by run and cut into {@code copies} columns of {@code
   * partitions} entries as it grows: it never holds more than the runs.
   */
  private static final class Columns {
    private final int partitions;
    private final List<List<int[]>> runs = new ArrayList<>();
    private long written;

    Columns(int partitions, int copies) {
      this.partitions = partitions;
      for (int c = 0; c < copies; c++) {
        runs.add(new ArrayList<>());
      }
    }

    /** Appends {@code count} copies held by {@code position}. */
    void append(int position, int count) {
      int left = count;
      while (left > 0) {
        int column = (int) (written / partitions);
        int start = (int) (written % partitions);
        int taken = Math.min(left, partitions - start);
        runs.get(column).add(new int[] {start + taken, position});
        written += taken;
        left -= taken;
      }
    }

    PartitionChains build() {
      int[][] ends = new int[runs.size()][];
      int[][] servers = new int[runs.size()][];
      for (int c = 0; c < ends.length; c++) {
        List<int[]> column = runs.get(c);
        ends[c] = new int[column.size()];
        servers[c] = new int[column.size()];
        for (int r = 0; r < column.size(); r++) {
          ends[c][r] = column.get(r)[0];
          servers[c][r] = column.get(r)[1];
        }
      }
      return PartitionChains.ofColumns(partitions, ends, servers);
    }
  }

  /**
   * The groups whose runs must stay apart: hosts when there are at least as many as copies (each
   * host's positions in order), otherwise single servers, ordered by host so that copies still
   * spread over the hosts there are.
   */
  private static List<int[]> units(int[] hostOf, int copies) {
    List<List<Integer>> byHost = new ArrayList<>();
    int[] groupOfHost = new int[Arrays.stream(hostOf).max().orElse(-1) + 1];
    Arrays.fill(groupOfHost, -1);
    for (int position = 0; position < hostOf.length; position++) {
      int host = hostOf[position];
      if (groupOfHost[host] < 0) {
        groupOfHost[host] = byHost.size();
        byHost.add(new ArrayList<>());
      }
      byHost.get(groupOfHost[host]).add(position);
    }
    List<int[]> units = new ArrayList<>();
    if (byHost.size() >= copies) {
      for (List<Integer> host : byHost) {
        units.add(host.stream().mapToInt(Integer::intValue).toArray());
      }
    } else {
      for (List<Integer> host : byHost) {
        for (int position : host) {
          units.add(new int[] {position});
        }
      }
    }
    return units;
  }
}
