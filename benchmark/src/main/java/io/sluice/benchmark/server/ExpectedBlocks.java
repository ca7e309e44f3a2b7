package io.sluice.benchmark.server;

import io.sluice.common.protocol.message.BlockDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Every block the server acknowledged: what reading the shuffle back must find, nothing else. */
final class ExpectedBlocks {
  private final Map<Long, BlockDescriptor> byId = new HashMap<>();
  private final Map<Integer, long[]> idsByPartition = new HashMap<>();
  private final long bytes;

  ExpectedBlocks(List<BlockDescriptor> acknowledged) {
    Map<Integer, List<Long>> ids = new HashMap<>();
    long total = 0;
    for (BlockDescriptor b : acknowledged) {
      if (byId.put(b.blockId(), b) != null) {
        throw new IllegalStateException("block id " + b.blockId() + " was acknowledged twice");
      }
      ids.computeIfAbsent(b.partitionId(), p -> new ArrayList<>()).add(b.blockId());
      total += b.length();
    }
    ids.forEach((p, list) -> {
      long[] sorted = list.stream().mapToLong(Long::longValue).toArray();
      Arrays.sort(sorted);
      idsByPartition.put(p, sorted);
    });
    this.bytes = total;
  }

  /** The acknowledged block with this id, or null. */
  BlockDescriptor get(long blockId) {
    return byId.get(blockId);
  }

  /** The ids of the partition's acknowledged blocks, sorted. */
  long[] idsOf(int partition) {
    return idsByPartition.getOrDefault(partition, new long[0]);
  }

  int blocks() {
    return byId.size();
  }

  long bytes() {
    return bytes;
  }
}
