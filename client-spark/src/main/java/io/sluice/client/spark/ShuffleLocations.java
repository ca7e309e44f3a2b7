package io.sluice.client.spark;

import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.AssignmentResponse;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A shuffle's first locations (epoch 0), as the coordinator assigned them: a list of servers and,
 * per partition, the indexes of its chain's servers. Travels to executors inside the shuffle handle,
 * so it is kept compact: a few bytes per partition, each server named once.
 */
public final class ShuffleLocations implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ServerAddress[] servers;
  private final int[][] chains;

  private ShuffleLocations(ServerAddress[] servers, int[][] chains) {
    this.servers = servers;
    this.chains = chains;
  }

  public static ShuffleLocations of(AssignmentResponse assignment) {
    int[][] chains = new int[assignment.partitionCount()][];
    for (int p = 0; p < chains.length; p++) {
      chains[p] = assignment.serverIndexes(p).clone();
    }
    return new ShuffleLocations(assignment.servers().toArray(new ServerAddress[0]), chains);
  }

  public int numPartitions() {
    return chains.length;
  }

  /** The partition's epoch-0 location. */
  public PartitionLocation location(int partition) {
    int[] chain = chains[partition];
    List<ServerAddress> members = new ArrayList<>(chain.length);
    for (int index : chain) {
      members.add(servers[index]);
    }
    return new PartitionLocation(0, members);
  }

  /** Every server named, each once. */
  public List<ServerAddress> servers() {
    return List.of(servers);
  }
}
