package io.sluice.client.core.push;

import io.sluice.common.protocol.PartitionLocation;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Locations that never change: a failed location fails the attempt (benchmarks, tests). */
public final class FixedLocations implements PartitionLocator {
  private final List<PartitionLocation> locations;

  /**
   * @param locations the location of each partition, by partition id
   */
  public FixedLocations(List<PartitionLocation> locations) {
    this.locations = List.copyOf(locations);
  }

  @Override
  public PartitionLocation location(int partition) {
    return locations.get(partition);
  }

  @Override
  public CompletableFuture<Map<Integer, PartitionLocation>> relocate(
      int[] partitions, int[] epochs, String failedServerId, String reason) {
    return CompletableFuture.failedFuture(
        new IOException(
            "server " + failedServerId + " failed (" + reason + ") and these locations are fixed"));
  }
}
