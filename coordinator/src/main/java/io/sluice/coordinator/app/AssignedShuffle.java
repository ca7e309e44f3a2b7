package io.sluice.coordinator.app;

import java.util.List;

/**
 * A shuffle of a registered application as this coordinator assigned it: the first assignment
 * places every partition, each later one for the same shuffle relocates some (the client asks
 * again, naming the servers it found unusable).
 *
 * @param partitions the partitions of the first assignment
 * @param copies copies per partition
 * @param serverIds every server named for the shuffle so far, in the order first named
 * @param relocations assignments after the first
 */
public record AssignedShuffle(
    int shuffleId,
    int partitions,
    int copies,
    List<String> serverIds,
    int relocations,
    long firstAssignedMillis,
    long lastAssignedMillis) {

  public AssignedShuffle {
    serverIds = List.copyOf(serverIds);
  }
}
