package io.sluice.client.core.push;

import io.sluice.common.protocol.PartitionLocation;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Where a map attempt writes each partition. Locations change while attempts write: when a push to
 * a location fails for good (its server is gone, restarted or draining, or a replica could not be
 * reached), the writer asks for new locations of the partitions concerned. Thread-safe.
 */
public interface PartitionLocator {

  /** The location partition {@code partition} is written to now. */
  PartitionLocation location(int partition);

  /**
   * New locations for partitions whose location {@code failed} could not take their blocks. Asks
   * whoever owns the locations (the Spark driver) and completes with the new location of every
   * partition asked for; a partition that already moved past {@code failed} gets its current
   * location without a new one being made. Completes exceptionally when no location can be had.
   *
   * @param partitions the partitions, each last written at the epoch in {@code epochs}
   * @param failedServerId the server found unusable
   * @param reason why, for logs
   */
  CompletableFuture<Map<Integer, PartitionLocation>> relocate(
      int[] partitions, int[] epochs, String failedServerId, String reason);
}
