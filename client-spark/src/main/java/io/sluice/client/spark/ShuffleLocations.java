package io.sluice.client.spark;

import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.AssignmentAnswer;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A shuffle's first locations (epoch 0), as the coordinator assigned them: a list of servers and
 * the partitions' chains as runs of neighbouring partitions. Travels to executors inside the
 * shuffle handle, so its size grows with the servers, not with the partitions.
 */
public final class ShuffleLocations implements Serializable {
  private static final long serialVersionUID = 2L;

  private final ServerAddress[] servers;
  private final PartitionChains chains;

  private ShuffleLocations(ServerAddress[] servers, PartitionChains chains) {
    this.servers = servers;
    this.chains = chains;
  }

  public static ShuffleLocations of(AssignmentAnswer assignment) {
    return new ShuffleLocations(
        assignment.servers().toArray(new ServerAddress[0]), assignment.chains());
  }

  public int numPartitions() {
    return chains.partitionCount();
  }

  /** The partition's epoch-0 location. */
  public PartitionLocation location(int partition) {
    int[] chain = chains.chain(partition);
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
