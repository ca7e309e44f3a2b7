package io.sluice.common.protocol.message;

import io.sluice.common.protocol.PartitionChains;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A coordinator's answer to a {@link GetAssignmentRequest}, in either of its wire layouts: one
 * chain per partition ({@link AssignmentResponse}, protocol versions before 6) or runs of
 * partitions ({@link AssignmentRunsResponse}, from version 6).
 */
public interface AssignmentAnswer extends ResponseMessage {

  /** Every server the assignment names, each once. */
  List<ServerAddress> servers();

  /** Each partition's servers, as indexes into {@link #servers()}. */
  PartitionChains chains();

  default int partitionCount() {
    return chains().partitionCount();
  }

  /**
   * Returns {@code chains} if every index it names is in {@code servers}.
   *
   * @throws IllegalArgumentException otherwise
   */
  static PartitionChains checkIndexes(List<ServerAddress> servers, PartitionChains chains) {
    if (chains.maxServerIndex() >= servers.size()) {
      throw new IllegalArgumentException(
          "server index " + chains.maxServerIndex() + " is not in 0.." + (servers.size() - 1));
    }
    return chains;
  }

  /** A partition's servers, primary first. */
  default List<ServerAddress> serversOf(int partition) {
    int[] chain = chains().chain(partition);
    List<ServerAddress> result = new ArrayList<>(chain.length);
    for (int index : chain) {
      result.add(servers().get(index));
    }
    return result;
  }
}
