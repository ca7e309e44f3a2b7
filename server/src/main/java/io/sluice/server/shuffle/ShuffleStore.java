package io.sluice.server.shuffle;

import io.netty.buffer.ByteBuf;
import io.sluice.common.auth.Secret;
import io.sluice.common.protocol.LogText;
import io.sluice.common.protocol.StatusCode;
import io.sluice.server.ServerOptions;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import io.sluice.server.storage.HdfsTier;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.RestartManifest;
import io.sluice.server.storage.SafeNames;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
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

  /**
   * Applications whose data is being deleted. An application registered again meanwhile would write
   * under the directory that deletion removes, so registration waits (retriably) until it ends.
   */
  private final Set<String> deleting = ConcurrentHashMap.newKeySet();

  /**
   * Shuffles ({@code appId/shuffleId}) whose deletion is under way: their directory is moved away
   * last, so a shuffle registered again with the same id (Spark 4.1 revives a removed shuffle)
   * waits, retriably, until it is gone, lest its new files go with it.
   */
  private final Set<String> deletingShuffles = ConcurrentHashMap.newKeySet();

  private final ShuffleState.PartitionFilesFactory filesFactory;
  private final DiskManager disks;

  /** Null without an HDFS tier. */
  private final HdfsTier hdfs;

  private final Consumer<ByteBuf> free;
  private final LongSupplier nanoClock;
  private final StoreLimits limits;
  private final CommitBudget commits;
  private volatile boolean draining;

  /** When {@link #expire} last ran; Long.MIN_VALUE before its first run. Only its caller writes. */
  private long lastSweepNanos = Long.MIN_VALUE;

  /**
   * A store whose partitions flush to {@code disks} only (no HDFS tier).
   *
   * @param free returns a block's buffer to the push pool
   */
  public static ShuffleStore onLocalDisks(
      DiskManager disks,
      FileIo io,
      Consumer<ByteBuf> free,
      LongSupplier nanoClock,
      StoreLimits limits) {
    return new ShuffleStore(
        (app, shuffle, partition) -> new PartitionFiles(disks, io, app, shuffle, partition),
        disks,
        null,
        free,
        nanoClock,
        limits);
  }

  /**
   * @param hdfs the HDFS tier, whose directories go with the shuffles and applications; or null
   * @param free returns a block's buffer to the push pool
   */
  public ShuffleStore(
      ShuffleState.PartitionFilesFactory filesFactory,
      DiskManager disks,
      HdfsTier hdfs,
      Consumer<ByteBuf> free,
      LongSupplier nanoClock,
      StoreLimits limits) {
    this.limits = limits;
    this.commits = new CommitBudget(limits.commitHeapBytes());
    this.filesFactory = filesFactory;
    this.disks = disks;
    this.hdfs = hdfs;
    this.free = free;
    this.nanoClock = nanoClock;
  }

  /**
   * Registers (or refreshes) an application. Idempotent. Refused with the retriable BUSY while the
   * data of an earlier registration of the same id is still being deleted; with ACCESS_DENIED when
   * it is registered with another secret; with REFUSED beyond the limits.
   *
   * @param secret the secret its connections will prove; null when the server does not authenticate
   */
  public AppState registerApplication(String appId, String user, Secret secret) {
    checkAppId(appId);
    // compute() runs atomically with unregisterApplication's removal of the same id.
    AppState app =
        apps.compute(
            appId,
            (id, existing) -> {
              if (existing != null) {
                if (!Objects.equals(existing.secret(), secret)) {
                  throw new RequestRejectedException(
                      StatusCode.ACCESS_DENIED,
                      "application " + id + " is registered on this server with another secret");
                }
                return existing;
              }
              if (deleting.contains(id)) {
                throw new RequestRejectedException(
                    StatusCode.BUSY,
                    "the data of an earlier "
                        + "registration of application "
                        + id
                        + " is still being deleted; retry");
              }
              limits.checkNewApplication(apps.values(), user);
              LOG.info("Registered application {} of user {}", id, LogText.escape(user));
              return new AppState(id, user, secret, nanoClock.getAsLong());
            });
    app.heartbeat(nanoClock.getAsLong());
    return app;
  }

  /** The secret of a registered application, or null when it is unknown (or has none). */
  public Secret appSecret(String appId) {
    AppState app = apps.get(appId);
    return app == null ? null : app.secret();
  }

  /** Heap that the commit bookkeeping of every shuffle held now takes, as reserved. */
  public long commitHeapBytes() {
    return commits.used();
  }

  /** The most heap the commit bookkeeping may take ({@code heap.commit.pairs} x 1.5 bytes). */
  public long commitHeapCapacityBytes() {
    return commits.capacity();
  }

  public void heartbeat(String appId) {
    app(appId).heartbeat(nanoClock.getAsLong());
  }

  /**
   * From now on the server takes no new shuffles and no pushed data (both answered SHUTTING_DOWN,
   * so that writers move to other servers); what it holds stays readable and committable.
   */
  public void startDraining() {
    draining = true;
  }

  public boolean isDraining() {
    return draining;
  }

  /** Refuses data while draining. */
  public void checkTakingData() {
    if (draining) {
      throw new RequestRejectedException(
          StatusCode.SHUTTING_DOWN,
          "this server is draining before it stops and takes no new data; use another location");
    }
  }

  /** Registers a shuffle; idempotent when the partition count agrees. */
  public ShuffleState registerShuffle(String appId, int shuffleId, int numPartitions) {
    AppState app = app(appId);
    checkTakingData();
    if (shuffleId < 0) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST, "negative shuffle id " + shuffleId);
    }
    if (numPartitions <= 0) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "shuffle "
              + shuffleId
              + " has "
              + numPartitions
              + " partitions; a shuffle has at least one");
    }
    ShuffleState shuffle =
        app.shuffleMap()
            .computeIfAbsent(
                shuffleId,
                id -> {
                  if (deletingShuffles.contains(appId + "/" + id)) {
                    throw new RequestRejectedException(
                        StatusCode.BUSY,
                        "the data of an earlier registration of shuffle "
                            + id
                            + " of application "
                            + appId
                            + " is still being deleted; retry");
                  }
                  limits.checkNewShuffle(app);
                  return new ShuffleState(appId, id, numPartitions, filesFactory, commits);
                });
    if (shuffle.numPartitions() != numPartitions) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "shuffle "
              + shuffleId
              + " is registered with "
              + shuffle.numPartitions()
              + " partitions, not "
              + numPartitions);
    }
    app.heartbeat(nanoClock.getAsLong());
    return shuffle;
  }

  /**
   * The shuffle, or a rejection naming what is unknown. Any request that names a shuffle keeps its
   * application alive, so that an application whose heartbeats are late but whose tasks still push
   * or read is never expired.
   */
  public ShuffleState shuffle(String appId, int shuffleId) {
    AppState app = app(appId);
    app.heartbeat(nanoClock.getAsLong());
    ShuffleState shuffle = app.shuffle(shuffleId);
    if (shuffle == null) {
      throw new RequestRejectedException(
          StatusCode.UNKNOWN_SHUFFLE,
          "shuffle " + shuffleId + " of application " + appId + " is not registered here");
    }
    return shuffle;
  }

  /** Checks a partition id against its shuffle. */
  public static void checkPartition(ShuffleState shuffle, int partitionId) {
    if (partitionId < 0 || partitionId >= shuffle.numPartitions()) {
      throw new RequestRejectedException(
          StatusCode.INVALID_REQUEST,
          "partition "
              + partitionId
              + " is out of range: shuffle "
              + shuffle.shuffleId()
              + " has "
              + shuffle.numPartitions()
              + " partitions");
    }
  }

  /** Deletes a shuffle's memory and files at once. Blocking: not on an event loop. */
  public void unregisterShuffle(String appId, int shuffleId) {
    AppState app = apps.get(appId);
    if (app == null) {
      return;
    }
    String key = appId + "/" + shuffleId;
    ShuffleState[] removed = new ShuffleState[1];
    // Removed and marked in one step, so that no registration of the same id comes in between.
    app.shuffleMap()
        .computeIfPresent(
            shuffleId,
            (id, shuffle) -> {
              deletingShuffles.add(key);
              removed[0] = shuffle;
              return null;
            });
    ShuffleState shuffle = removed[0];
    if (shuffle == null) {
      return;
    }
    try {
      shuffle.delete(free);
      disks.deleteShuffle(appId, shuffleId);
      if (hdfs != null) {
        hdfs.deleteShuffle(appId, shuffleId);
      }
      LOG.info("Deleted shuffle {} of application {}", shuffleId, appId);
    } finally {
      deletingShuffles.remove(key);
    }
  }

  /** Deletes an application with all its data. Blocking: not on an event loop. */
  public void unregisterApplication(String appId) {
    AppState[] removed = new AppState[1];
    apps.computeIfPresent(
        appId,
        (id, app) -> {
          deleting.add(id);
          removed[0] = app;
          return null;
        });
    AppState app = removed[0];
    if (app == null) {
      return;
    }
    try {
      for (ShuffleState s : app.shuffles()) {
        s.delete(free);
      }
      disks.deleteApplication(appId);
      if (hdfs != null) {
        hdfs.deleteApplication(appId);
      }
      LOG.info("Deleted application {}", appId);
    } finally {
      deleting.remove(appId);
    }
  }

  /**
   * Drops an application from memory and leaves its files, for a server that recorded them for its
   * next start. Its blocks are all on disk by then.
   */
  public void forgetApplication(String appId) {
    AppState app = apps.remove(appId);
    if (app != null) {
      for (ShuffleState s : app.shuffles()) {
        s.forgetMemory(free);
      }
    }
  }

  /**
   * Removes applications that sent no heartbeat for {@code expiry}; returns their ids. Called
   * periodically, at most every {@code expiry / 4}.
   *
   * <p>Time the server itself did not run does not count: after a pause of the whole process of
   * half the expiry or more (a long GC, SIGSTOP, a frozen VM), heart-beats sent meanwhile still sit
   * unread in its sockets, and the drivers could not have reached it. Every application then gets a
   * full expiry from now to be heard from, instead of losing its data to the server's own pause.
   */
  public List<String> expire(Duration expiry) {
    long now = nanoClock.getAsLong();
    long sinceLastSweep = now - lastSweepNanos;
    boolean firstSweep = lastSweepNanos == Long.MIN_VALUE;
    lastSweepNanos = now;
    if (!firstSweep && sinceLastSweep >= expiry.toNanos() / 2) {
      LOG.warn(
          "Expiry had not run for {} ms (the server was paused or starved); every "
              + "application gets {} from now to send a heartbeat ({})",
          sinceLastSweep / 1_000_000,
          expiry,
          ServerOptions.APP_EXPIRY.key());
      for (AppState app : apps.values()) {
        app.heartbeat(now);
      }
      return List.of();
    }
    List<String> expired = new ArrayList<>();
    for (AppState app : apps.values()) {
      if (now - app.lastHeartbeatNanos() > expiry.toNanos()) {
        expired.add(app.appId());
      }
    }
    for (String id : expired) {
      LOG.info(
          "Application {} sent no heartbeat for {} ({}); deleting its data",
          id,
          expiry,
          ServerOptions.APP_EXPIRY.key());
      unregisterApplication(id);
    }
    return expired;
  }

  /**
   * Every application, shuffle and partition as a restart manifest records them. The server must
   * have flushed every block first.
   */
  public List<RestartManifest.Application> forRestart() {
    List<RestartManifest.Application> all = new ArrayList<>();
    for (AppState app : apps.values()) {
      List<RestartManifest.Shuffle> shuffles = new ArrayList<>();
      for (ShuffleState shuffle : app.shuffles()) {
        List<RestartManifest.Partition> partitions = new ArrayList<>();
        for (PartitionState p : shuffle.partitions()) {
          partitions.add(p.forRestart());
        }
        shuffles.add(
            new RestartManifest.Shuffle(shuffle.shuffleId(), shuffle.numPartitions(), partitions));
      }
      all.add(
          new RestartManifest.Application(
              app.appId(),
              app.user(),
              app.secret() == null ? null : app.secret().copyOfBytes(),
              shuffles));
    }
    return all;
  }

  /**
   * Takes back what an earlier run of this server held, from its restart manifest: applications
   * with their secrets, shuffles, and partitions with their files and commits. A partition whose
   * files no longer hold what they held is left out, and logged. Restored applications expire like
   * any other unless their drivers heart-beat.
   *
   * @return how many partitions are served again, and how many were left out
   */
  public Recovery restore(List<RestartManifest.Application> restored) {
    long now = nanoClock.getAsLong();
    int served = 0;
    int dropped = 0;
    for (RestartManifest.Application r : restored) {
      if (!SafeNames.isValidAppId(r.appId())) {
        LOG.warn("Restart manifest names an invalid application id; left out");
        continue;
      }
      AppState app =
          new AppState(r.appId(), r.user(), r.secret() == null ? null : Secret.of(r.secret()), now);
      int partitions = 0;
      for (RestartManifest.Shuffle s : r.shuffles()) {
        ShuffleState shuffle =
            new ShuffleState(r.appId(), s.shuffleId(), s.numPartitions(), filesFactory, commits);
        for (RestartManifest.Partition p : s.partitions()) {
          try {
            shuffle.restorePartition(p);
            partitions++;
          } catch (IOException | RuntimeException e) {
            shuffle.forget(p.partitionId());
            dropped++;
            LOG.warn(
                "Partition {} of shuffle {} of {} is not served again after the restart: {}",
                p.partitionId(),
                s.shuffleId(),
                r.appId(),
                e.getMessage());
          }
        }
        app.shuffleMap().put(s.shuffleId(), shuffle);
      }
      apps.put(r.appId(), app);
      served += partitions;
      LOG.info(
          "Serving application {} again after the restart: {} shuffles, {} partitions",
          r.appId(),
          r.shuffles().size(),
          partitions);
    }
    return new Recovery(served, dropped);
  }

  /** What {@link #restore} took back: partitions served again, and partitions left out. */
  public record Recovery(int servedPartitions, int droppedPartitions) {}

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
      throw new RequestRejectedException(
          StatusCode.UNKNOWN_APPLICATION,
          "application "
              + appId
              + " is not registered here (expired after "
              + ServerOptions.APP_EXPIRY.key()
              + " without heartbeats, or never registered)");
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
