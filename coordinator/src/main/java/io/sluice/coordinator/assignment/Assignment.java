package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.ServerAddress;
import java.util.List;

/**
 * Where a shuffle's partitions go: the servers involved, each once, and every partition's chain of
 * indexes into that list, primary first, as runs ({@link PartitionChains}).
 */
public record Assignment(List<ServerAddress> servers, PartitionChains chains) {

  public int partitionCount() {
    return chains.partitionCount();
  }

  /** Copies (primaries and replicas) each server of {@link #servers()} holds. */
  public long[] copiesPerServer() {
    return chains.copiesPerServer(servers.size());
  }
}
