package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.ServerAddress;
import java.util.List;

/**
 * Where a shuffle's partitions go: the servers involved, each once, and for every partition the
 * indexes of its servers in that list, primary first. The arrays are handed to the response as they
 * are; nobody modifies them afterwards.
 */
public record Assignment(List<ServerAddress> servers, int[][] partitionServers) {

  public int partitionCount() {
    return partitionServers.length;
  }

  /** Copies (primaries and replicas) each server of {@link #servers()} holds. */
  public int[] copiesPerServer() {
    int[] copies = new int[servers.size()];
    for (int[] indexes : partitionServers) {
      for (int index : indexes) {
        copies[index]++;
      }
    }
    return copies;
  }
}
