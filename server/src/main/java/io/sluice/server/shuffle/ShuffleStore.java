package io.sluice.server.shuffle;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.StatusCode;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.SafeNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every application, shuffle and partition this server holds. Lookups are lock-free; deletion
 * (unregister, expiry) frees memory and files and must run off the event loop.
 */
public final class ShuffleStore {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleStore.class);

  private final ConcurrentHashMap<String, AppState> apps = new ConcurrentHashMap<>();
  private final ShuffleState.PartitionFilesFactory filesFactory;
  private final DiskManager disks;
  private final Consumer<ByteBuf> free;
  private final LongSupplier nanoClock;
  private final int maxPartitions;

  /**
   * @param free returns a block's buffer to the push pool
   * @param maxPartitions the block id layout's partition limit
   */
  public ShuffleStore(ShuffleState.PartitionFilesFactory filesFactory, DiskManager disks,
      Consumer<ByteBuf> free, LongSupplier nanoClock, int maxPartitions) {
    this.filesFactory = filesFactory;
    this.disks = disks;
    this.free = free;
    this.nanoClock = nanoClock;
    this.maxPartitions = maxPartitions;
  }

  /** Registers (or refreshes) an application. Idempotent. */
  public AppState registerApplication(String appId, String user) {
    checkAppId(appId);
    AppState app = apps.computeIfAbsent(appId, id -> {
      LOG.info("Registered application {} of user {}", id, user);
      return new AppState(id, user, nanoClock.getAsLong());
    });
    app.heartbeat(nanoClock.getAsLong());
    return app;
  }

  public void heartbeat(String appId) {
    app(appId).heartbeat(nanoClock.getAsLong());
  }

  /** Registers a shuffle; idempotent when the partition count agrees. */
  public ShuffleState registerShuffle(String appId, int shuffleId, int numPartitions) {
    AppState app = app(appId);
    if (shuffleId < 0) {
      throw new RequestRejectedException(StatusCode.INVALID_REQUEST,
          "negative shuffle id " + shuffleId);
    }
    if (numPartitions <= 0 || numPartitions > maxPartitions) {
      throw new RequestRejectedException(StatusCode.INVALID_REQUEST, "shuffle " + shuffleId
          + " has " + numPartitions + " partitions; a shuffle has 1 to " + maxPartitions);
    }
    ShuffleState shuffle = app.shuffleMap().computeIfAbsent(shuffleId,
        id -> new ShuffleState(appId, id, numPartitions, filesFactory));
    if (shuffle.numPartitions() != numPartitions) {
      throw new RequestRejectedException(StatusCode.INVALID_REQUEST, "shuffle " + shuffleId
          + " is registered with " + shuffle.numPartitions() + " partitions, not " + numPartitions);
    }
    app.heartbeat(nanoClock.getAsLong());
    return shuffle;
  }

  /** The shuffle, or a rejection naming what is unknown. */
  public ShuffleState shuffle(String appId, int shuffleId) {
    ShuffleState shuffle = app(appId).shuffle(shuffleId);
    if (shuffle == null) {
      throw new RequestRejectedException(StatusCode.UNKNOWN_SHUFFLE,
          "shuffle " + shuffleId + " of application " + appId + " is not registered here");
    }
    return shuffle;
  }

  /** Checks a partition id against its shuffle. */
  public static void checkPartition(ShuffleState shuffle, int partitionId) {
    if (partitionId < 0 || partitionId >= shuffle.numPartitions()) {
      throw new RequestRejectedException(StatusCode.INVALID_REQUEST, "partition " + partitionId
          + " is out of range: shuffle " + shuffle.shuffleId() + " has "
          + shuffle.numPartitions() + " partitions");
    }
  }

  /** Deletes a shuffle's memory and files at once. Blocking: not on an event loop. */
  public void unregisterShuffle(String appId, int shuffleId) {
    AppState app = apps.get(appId);
    if (app == null) {
      return;
    }
    ShuffleState shuffle = app.shuffleMap().remove(shuffleId);
    if (shuffle != null) {
      shuffle.delete(free);
      disks.deleteShuffle(appId, shuffleId);
      LOG.info("Deleted shuffle {} of application {}", shuffleId, appId);
    }
  }

  /** Deletes an application with all its data. Blocking: not on an event loop. */
  public void unregisterApplication(String appId) {
    AppState app = apps.remove(appId);
    if (app != null) {
      for (ShuffleState s : app.shuffles()) {
        s.delete(free);
      }
      disks.deleteApplication(appId);
      LOG.info("Deleted application {}", appId);
    }
  }

  /** Removes applications that sent no heartbeat for {@code expiry}; returns their ids. */
  public List<String> expire(Duration expiry) {
    long now = nanoClock.getAsLong();
    List<String> expired = new ArrayList<>();
    for (AppState app : apps.values()) {
      if (now - app.lastHeartbeatNanos() > expiry.toNanos()) {
        expired.add(app.appId());
      }
    }
    for (String id : expired) {
      LOG.info("Application {} sent no heartbeat for {} (app.expiry); deleting its data", id,
          expiry);
      unregisterApplication(id);
    }
    return expired;
  }

  public Collection<AppState> applications() {
    return apps.values();
  }

  public int partitionCount() {
    int n = 0;
    for (AppState app : apps.values()) {
      for (ShuffleState s : app.shuffles()) {
        n += s.partitions().size();
      }
    }
    return n;
  }

  private AppState app(String appId) {
    AppState app = apps.get(appId);
    if (app == null) {
      throw new RequestRejectedException(StatusCode.UNKNOWN_APPLICATION,
          "application " + appId + " is not registered here (expired after app.expiry without "
              + "heartbeats, or never registered)");
    }
    return app;
  }

  private static void checkAppId(String appId) {
    try {
      SafeNames.checkAppId(appId);
    } catch (IllegalArgumentException e) {
      throw new RequestRejectedException(StatusCode.INVALID_REQUEST, e.getMessage());
    }
  }
}
