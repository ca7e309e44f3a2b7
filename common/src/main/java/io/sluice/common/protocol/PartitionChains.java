package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import java.io.Serializable;
import java.util.Arrays;

/**
 * Which servers hold each of a shuffle's partitions, primary first, in a form whose size does not
 * grow with the number of partitions: {@code copies} columns, each a list of runs of neighbouring
 * partitions on one server. Partition {@code p}'s chain is, for {@code c = 0 .. copies-1}, the
 * server of column {@code (p + c) mod copies} at {@code p}; so the primary role rotates with the
 * partition number while every column stays one run per server. Servers are indexes into a list
 * kept beside this (an assignment's server list). Immutable; travels to executors inside the
 * shuffle handle.
 *
 * <p>Wire form (docs/protocol.md, "PartitionChains"): {@code int32 partitionCount | uint16 copies}
 * then per column {@code int32 runCount} and {@code runCount x (int32 end, int32 serverIndex)},
 * where {@code end} is one past the run's last partition, ends rise strictly and the last is {@code
 * partitionCount}.
 */
public final class PartitionChains implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int RUN_BYTES = 8;

  private final int partitionCount;

  /** Per column, one past each run's last partition, rising; the last is partitionCount. */
  private final int[][] runEnds;

  /** Per column, each run's server index. */
  private final int[][] runServers;

  private PartitionChains(int partitionCount, int[][] runEnds, int[][] runServers) {
    this.partitionCount = partitionCount;
    this.runEnds = runEnds;
    this.runServers = runServers;
  }

  /**
   * Takes the arrays as they are (no copy): the caller must not modify them afterwards.
   *
   * @param runEnds per column, one past each run's last partition: rising, the last {@code
   *     partitionCount}
   * @param runServers per column, each run's server index, at least 0
   * @throws IllegalArgumentException if the columns do not describe {@code partitionCount}
   *     partitions
   */
  public static PartitionChains ofColumns(int partitionCount, int[][] runEnds, int[][] runServers) {
    String problem = check(partitionCount, runEnds, runServers, Integer.MAX_VALUE);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    return new PartitionChains(partitionCount, runEnds, runServers);
  }

  /**
   * From one chain per partition, all of the same length, primary first (the layout of protocol
   * versions before 6).
   *
   * @throws IllegalArgumentException if there is no partition or the chains differ in length
   */
  public static PartitionChains ofChains(int[][] chains) {
    if (chains.length == 0) {
      throw new IllegalArgumentException("no partition");
    }
    int copies = chains[0].length;
    int[][] ends = new int[copies][];
    int[][] servers = new int[copies][];
    for (int column = 0; column < copies; column++) {
      int[] runEnds = new int[8];
      int[] runServers = new int[8];
      int runs = 0;
      for (int p = 0; p < chains.length; p++) {
        if (chains[p].length != copies) {
          throw new IllegalArgumentException(
              "partition "
                  + p
                  + " has "
                  + chains[p].length
                  + " servers, partition 0 has "
                  + copies);
        }
        int server = chains[p][Math.floorMod(column - p, copies)];
        if (runs > 0 && runServers[runs - 1] == server) {
          runEnds[runs - 1] = p + 1;
          continue;
        }
        if (runs == runEnds.length) {
          runEnds = Arrays.copyOf(runEnds, runs * 2);
          runServers = Arrays.copyOf(runServers, runs * 2);
        }
        runEnds[runs] = p + 1;
        runServers[runs] = server;
        runs++;
      }
      ends[column] = Arrays.copyOf(runEnds, runs);
      servers[column] = Arrays.copyOf(runServers, runs);
    }
    return ofColumns(chains.length, ends, servers);
  }

  public int partitionCount() {
    return partitionCount;
  }

  /** Servers per partition, the primary included. */
  public int copies() {
    return runEnds.length;
  }

  /** The server index of the partition's {@code copy}-th server (0 = primary). */
  public int server(int partition, int copy) {
    if (partition < 0 || partition >= partitionCount) {
      throw new IndexOutOfBoundsException(
          "partition " + partition + " is not in 0.." + (partitionCount - 1));
    }
    int column = (partition % copies() + copy) % copies();
    int[] ends = runEnds[column];
    int found = Arrays.binarySearch(ends, partition);
    // A run's end is exclusive: a partition equal to one run's end starts the next.
    int run = found >= 0 ? found + 1 : -found - 1;
    return runServers[column][run];
  }

  /** The partition's server indexes, primary first. */
  public int[] chain(int partition) {
    int[] chain = new int[copies()];
    for (int c = 0; c < chain.length; c++) {
      chain[c] = server(partition, c);
    }
    return chain;
  }

  /** Copies held per server index, for servers {@code 0 .. serverCount-1}. */
  public long[] copiesPerServer(int serverCount) {
    long[] held = new long[serverCount];
    for (int column = 0; column < runEnds.length; column++) {
      int start = 0;
      for (int run = 0; run < runEnds[column].length; run++) {
        held[runServers[column][run]] += runEnds[column][run] - start;
        start = runEnds[column][run];
      }
    }
    return held;
  }

  /** The same layout with every server index {@code i} replaced by {@code newIndex[i]}. */
  public PartitionChains renumber(int[] newIndex) {
    int[][] servers = new int[runServers.length][];
    for (int column = 0; column < servers.length; column++) {
      servers[column] = new int[runServers[column].length];
      for (int run = 0; run < servers[column].length; run++) {
        servers[column][run] = newIndex[runServers[column][run]];
      }
    }
    return ofColumns(partitionCount, runEnds, servers);
  }

  /** The largest server index named. */
  public int maxServerIndex() {
    int max = -1;
    for (int[] column : runServers) {
      for (int server : column) {
        max = Math.max(max, server);
      }
    }
    return max;
  }

  public int encodedLength() {
    int length = 4 + 2;
    for (int[] ends : runEnds) {
      length += 4 + RUN_BYTES * ends.length;
    }
    return length;
  }

  public void encode(ByteBuf out) {
    out.writeInt(partitionCount);
    out.writeShort(copies());
    for (int column = 0; column < runEnds.length; column++) {
      out.writeInt(runEnds[column].length);
      for (int run = 0; run < runEnds[column].length; run++) {
        out.writeInt(runEnds[column][run]);
        out.writeInt(runServers[column][run]);
      }
    }
  }

  /**
   * @param serverCount how many servers the indexes may name
   * @throws CorruptFrameException if the layout is inconsistent or names another server
   */
  public static PartitionChains decode(ByteBuf in, int serverCount) {
    int partitionCount = in.readInt();
    int copies = WireEncoding.readShortCount(in, 4, "column");
    int[][] ends = new int[copies][];
    int[][] servers = new int[copies][];
    for (int column = 0; column < copies; column++) {
      int runs = WireEncoding.readCount(in, RUN_BYTES, "run");
      ends[column] = new int[runs];
      servers[column] = new int[runs];
      for (int run = 0; run < runs; run++) {
        ends[column][run] = in.readInt();
        servers[column][run] = in.readInt();
      }
    }
    String problem = check(partitionCount, ends, servers, serverCount);
    if (problem != null) {
      throw new CorruptFrameException(problem);
    }
    return new PartitionChains(partitionCount, ends, servers);
  }

  /** What is wrong with the columns, or null. */
  private static String check(
      int partitionCount, int[][] runEnds, int[][] runServers, int serverCount) {
    if (partitionCount < 1) {
      return "a layout has at least one partition, not " + partitionCount;
    }
    if (runEnds.length < 1 || runEnds.length > 0xFFFF || runServers.length != runEnds.length) {
      return "a layout has 1 to 65535 columns, one server list each, not "
          + runEnds.length
          + " and "
          + runServers.length;
    }
    for (int column = 0; column < runEnds.length; column++) {
      int[] ends = runEnds[column];
      if (ends.length == 0 || runServers[column].length != ends.length) {
        return "column "
            + column
            + " has "
            + ends.length
            + " run ends and "
            + runServers[column].length
            + " servers";
      }
      int previous = 0;
      for (int run = 0; run < ends.length; run++) {
        if (ends[run] <= previous || ends[run] > partitionCount) {
          return "column "
              + column
              + " run "
              + run
              + " ends at "
              + ends[run]
              + ", not in "
              + (previous + 1)
              + ".."
              + partitionCount;
        }
        int server = runServers[column][run];
        if (server < 0 || server >= serverCount) {
          return "column "
              + column
              + " run "
              + run
              + " names server index "
              + server
              + " of "
              + serverCount;
        }
        previous = ends[run];
      }
      if (previous != partitionCount) {
        return "column " + column + " ends at partition " + previous + " of " + partitionCount;
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionChains other
        && partitionCount == other.partitionCount
        && Arrays.deepEquals(runEnds, other.runEnds)
        && Arrays.deepEquals(runServers, other.runServers);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * partitionCount + Arrays.deepHashCode(runEnds))
        + Arrays.deepHashCode(runServers);
  }

  @Override
  public String toString() {
    int runs = 0;
    for (int[] ends : runEnds) {
      runs += ends.length;
    }
    return "PartitionChains[partitions="
        + partitionCount
        + ", copies="
        + copies()
        + ", runs="
        + runs
        + "]";
  }
}
