package io.sluice.server;

import io.sluice.server.flush.FlushManager;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.LocalDisk;
import io.sluice.server.storage.RestartManifest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of the restart record ({@code recovery.enabled}): read at start, spent once the server
 * serves, written at a clean stop after every block reached disk. The same file name in every local
 * dir; a stop writes the first that takes it and removes the others, a start reads the newest. A
 * record that could not be removed (its dir turned read-only) is older than the one written after
 * it, and must not win: it would keep the applications it names and delete what the newer one kept.
 */
final class RestartRecord {
  private static final Logger LOG = LoggerFactory.getLogger(RestartRecord.class);

  private final List<Path> locations;

  RestartRecord(List<Path> localDirs) {
    this.locations = RestartManifest.locations(localDirs);
  }

  /**
   * What an earlier run recorded when it stopped cleanly; nothing when no dir holds a record or the
   * record cannot be trusted (logged).
   */
  List<RestartManifest.Application> read() {
    Path newest = null;
    FileTime newestTime = null;
    for (Path m : locations) {
      if (Files.exists(m, LinkOption.NOFOLLOW_LINKS) && !Files.isWritable(m.getParent())) {
        // Its dir turned read-only: once spent it could not be deleted, and would be read again
        // after a crash or a stop that records nothing, naming data that changed since.
        LOG.warn("Ignoring the restart record {}: its directory cannot be written", m);
        continue;
      }
      try {
        FileTime time = Files.getLastModifiedTime(m, LinkOption.NOFOLLOW_LINKS);
        if (newest != null) {
          LOG.warn("Restart records in {} and {}; reading the newer", newest, m);
        }
        if (newestTime == null || time.compareTo(newestTime) > 0) {
          newest = m;
          newestTime = time;
        }
      } catch (NoSuchFileException absent) {
        // no record in this dir
      } catch (IOException e) {
        LOG.warn("Cannot look at the restart record {}: {}", m, e.toString());
      }
    }
    if (newest == null) {
      return List.of();
    }
    try {
      return RestartManifest.read(newest);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot use the restart record {}; starting empty: {}", newest, e.toString());
      return List.of();
    }
  }

  /**
   * Deletes the record once the server serves: a start that failed before leaves it for the next,
   * and from here on the data changes, so a crash must find no record.
   */
  void spend() {
    for (Path m : locations) {
      try {
        Files.deleteIfExists(m);
      } catch (IOException e) {
        LOG.warn(
            "Cannot delete the restart record {}; a later start would read it: {}",
            m,
            e.toString());
      }
    }
  }

  /**
   * Writes every block to disk (within {@code flushTimeout}) and records what the server holds for
   * its next start; false, and nothing recorded, when a block could not be written.
   */
  boolean write(
      FlushManager flushManager, ShuffleStore store, DiskManager disks, Duration flushTimeout) {
    try {
      if (!flushManager.flushAll(flushTimeout)) {
        LOG.warn(
            "Could not write every block to disk within {} ({}); the next start begins empty",
            flushTimeout,
            ServerOptions.STOP_FLUSH_TIMEOUT.key());
        return false;
      }
      List<RestartManifest.Application> held = store.forRestart();
      forceToDevice(held);
      // A directory that failed is the last place to try.
      List<Path> candidates = new ArrayList<>(locations);
      candidates.sort(
          Comparator.comparing(
              m -> {
                LocalDisk disk = disks.diskOf(m);
                return disk == null || !disk.isHealthy();
              }));
      Path written = RestartManifest.writeToFirstUsable(candidates, held);
      for (Path other : locations) {
        if (!other.equals(written)) {
          try {
            Files.deleteIfExists(other);
          } catch (IOException e) {
            LOG.warn("Cannot delete the older restart record {}: {}", other, e.toString());
          }
        }
      }
      LOG.info(
          "Recorded {} applications in {} for the next start ({})",
          held.size(),
          written,
          ServerOptions.RECOVERY_ENABLED.key());
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Could not record what this server holds for its next start; it begins empty: {}",
          e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Forces every recorded file to its device: flushes end in the page cache, and a record that
   * outlived a power loss must not point at data that did not.
   */
  private static void forceToDevice(List<RestartManifest.Application> held) {
    for (RestartManifest.Application app : held) {
      for (RestartManifest.Shuffle shuffle : app.shuffles()) {
        for (RestartManifest.Partition partition : shuffle.partitions()) {
          for (RestartManifest.Generation g : partition.generations()) {
            if (g.isSegment()) {
              continue; // closed by its flush: on the tier's data nodes already
            }
            for (Path file : List.of(g.dataFile(), g.indexFile())) {
              try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                channel.force(true);
              } catch (IOException e) {
                // The next start checks the file and leaves the partition out if it is short.
                LOG.warn("Could not force {} to its device: {}", file, e.toString());
              }
            }
          }
        }
      }
    }
  }
}
