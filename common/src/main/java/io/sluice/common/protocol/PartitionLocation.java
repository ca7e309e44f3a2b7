package io.sluice.common.protocol;

import java.io.Serializable;
import java.util.List;

/**
 * Where one partition of a shuffle is written, for one period of its life: a chain of servers, the
 * primary first and then its replicas in forwarding order. A partition starts at epoch 0; when its
 * primary or a replica is lost while map tasks write, the driver gives it a new chain with a higher
 * epoch (see docs/architecture.md, "Failure model"). Blocks written before stay where they were, so
 * a reader reads every location a partition had where the map attempts it counts wrote.
 *
 * @param epoch the period, 0 for the shuffle's first assignment
 * @param servers the chain, primary first; never empty
 */
public record PartitionLocation(int epoch, List<ServerAddress> servers) implements Serializable {

  public PartitionLocation {
    servers = List.copyOf(servers);
    if (servers.isEmpty() || epoch < 0) {
      throw new IllegalArgumentException(
          "a location needs a server and a non-negative epoch, got "
              + servers
              + " at epoch "
              + epoch);
    }
  }

  public ServerAddress primary() {
    return servers.get(0);
  }

  /** The servers the primary forwards to, in chain order; empty without replication. */
  public List<ServerAddress> replicas() {
    return servers.subList(1, servers.size());
  }

  /** Whether {@code serverId} is one of this chain's servers. */
  public boolean includes(String serverId) {
    for (ServerAddress s : servers) {
      if (s.serverId().equals(serverId)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "epoch " + epoch + " " + servers;
  }
}
