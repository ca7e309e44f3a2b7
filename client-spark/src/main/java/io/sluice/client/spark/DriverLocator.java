package io.sluice.client.spark;

import io.sluice.client.core.push.PartitionLocator;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.message.GetLocationsRequest;
import io.sluice.common.protocol.message.LocationsResponse;
import io.sluice.common.protocol.message.RelocateRequest;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * An executor's view of one shuffle's locations, shared by the JVM's tasks: the shuffle's first
 * locations from its handle, updated with what the driver answers. Writers ask the driver for new
 * locations through it ({@link #relocate}); readers ask for every location partitions had ({@link
 * #allLocations}). Thread-safe.
 */
public final class DriverLocator implements PartitionLocator {
  private final SluiceShuffleHandle<?, ?, ?> handle;
  private final Connections clients;

  /**
   * Locations learnt from the driver, by partition; absent where the handle's epoch-0 location
   * still holds. A map, not an array: a shuffle may have billions of partitions, few of them moved.
   */
  private final Map<Integer, PartitionLocation> current = new ConcurrentHashMap<>();

  DriverLocator(SluiceShuffleHandle<?, ?, ?> handle, Connections clients) {
    this.handle = handle;
    this.clients = clients;
  }

  @Override
  public PartitionLocation location(int partition) {
    PartitionLocation known = current.get(partition);
    return known != null ? known : handle.locations().location(partition);
  }

  @Override
  public CompletableFuture<Map<Integer, PartitionLocation>> relocate(
      int[] partitions, int[] epochs, String failedServerId, String reason) {
    return driver()
        .thenCompose(
            c ->
                c.request(
                    new RelocateRequest(
                        TransportClient.nextRequestId(),
                        handle.appId(),
                        handle.shuffleId(),
                        partitions,
                        epochs,
                        failedServerId == null ? "" : failedServerId,
                        reason),
                    LocationsResponse.class))
        .thenApply(
            answer -> {
              Map<Integer, PartitionLocation> moved = new HashMap<>();
              for (LocationsResponse.Entry e : answer.entries()) {
                learn(e.partitionId(), e.location());
                moved.put(e.partitionId(), location(e.partitionId()));
              }
              return moved;
            });
  }

  /**
   * Every location of each of {@code partitions} (ascending, at least one), oldest first, as the
   * driver knows them now.
   */
  public Map<Integer, List<PartitionLocation>> allLocations(int[] partitions)
      throws IOException, InterruptedException {
    int start = partitions[0];
    int end = partitions[partitions.length - 1] + 1;
    LocationsResponse answer;
    try {
      answer =
          driver()
              .thenCompose(
                  c ->
                      c.request(
                          new GetLocationsRequest(
                              TransportClient.nextRequestId(),
                              handle.appId(),
                              handle.shuffleId(),
                              start,
                              end),
                          LocationsResponse.class))
              .get();
    } catch (ExecutionException e) {
      Throwable cause = Retries.unwrap(e);
      throw new IOException(
          "cannot ask the driver ("
              + handle.driverHost()
              + ":"
              + handle.driverPort()
              + ") where shuffle "
              + handle.shuffleId()
              + " lives: "
              + cause.getMessage(),
          cause);
    }
    Map<Integer, List<PartitionLocation>> moved = new HashMap<>();
    for (LocationsResponse.Entry e : answer.entries()) {
      moved.computeIfAbsent(e.partitionId(), p -> new ArrayList<>()).add(e.location());
      learn(e.partitionId(), e.location());
    }
    Map<Integer, List<PartitionLocation>> all = new HashMap<>();
    for (int p : partitions) {
      List<PartitionLocation> locations = moved.get(p);
      all.put(p, locations != null ? locations : List.of(handle.locations().location(p)));
    }
    return all;
  }

  private void learn(int partition, PartitionLocation location) {
    current.merge(partition, location, (old, fresh) -> fresh.epoch() > old.epoch() ? fresh : old);
  }

  private CompletableFuture<TransportClient> driver() {
    return clients.getClientAsync(handle.driverHost(), handle.driverPort());
  }
}
