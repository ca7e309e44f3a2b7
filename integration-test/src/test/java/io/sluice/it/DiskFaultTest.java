package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.server.ServerOptions;
import io.sluice.server.ShuffleServer;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.storage.LocalDisk;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.testcluster.MiniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Real local directories break under servers while a job runs. First the first local directory of
 * every server stops taking writes (made immutable, or read-only when not running as root), so
 * partitions continue in file pairs on the second. Then first directories disappear, as a failed or
 * unmounted disk does, and what they held cannot be read: one server's with two copies, every
 * server's with one. The answer equals the built-in shuffle's; with two copies no stage re-runs,
 * with one the map stage re-runs once.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DiskFaultTest {
  private static final int MAPS = ServerLossTest.MAPS;
  private static final int MAP_STAGE = 0;
  private static final int SERVERS = 3;

  private static MiniCluster cluster;
  private static List<Tuple2<Integer, long[]>> expected;
  private final List<Path> unwritable = new ArrayList<>();
  private final List<Path[]> moved = new ArrayList<>();
  private final List<Integer> vanished = new ArrayList<>();

  @BeforeAll
  static void reference() {
    expected =
        ServerLossTest.job(SparkSessions.base("local[2]", "disk-reference"), new JobObserver());
  }

  /** A cluster of its own for each test: directories taken out of rotation stay out. */
  @BeforeEach
  void start() throws Exception {
    cluster =
        new MiniCluster(
            SERVERS, 2, Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k"), Map.of());
  }

  /** Gives the directories back, so that the cluster's close can delete them. */
  @AfterEach
  void stop() throws Exception {
    try {
      for (Path dir : unwritable) {
        makeWritable(dir);
      }
      for (Path[] m : moved) {
        Files.move(m[1], m[0]);
      }
    } finally {
      cluster.close();
    }
  }

  private static SparkConf conf(int replicas) {
    return SparkSessions.withSluice(
            SparkSessions.base("local[2,4]", "disk-fault-" + replicas), cluster)
        .set("spark.sluice.replicas", String.valueOf(replicas))
        .set("spark.sluice.block.size", "32k")
        .set("spark.sluice.push.batch.size", "128k");
  }

  /**
   * Runs the job; after a third of the map tasks ended, every server's first directory stops taking
   * writes; after the first reduce task ended, first directories disappear: every server's with one
   * copy, one server's with two. Returns what Spark saw, and how many partitions had file pairs on
   * both directories of a server when the reduce stage ran.
   */
  private JobObserver runBreakingDisks(int replicas, AtomicInteger spanningPartitions) {
    AtomicInteger mapsEnded = new AtomicInteger();
    AtomicInteger faults = new AtomicInteger();
    JobObserver observer =
        new JobObserver()
            .onceWhen(
                e -> e.stageId() == MAP_STAGE && e.end() && mapsEnded.incrementAndGet() == MAPS / 3,
                () -> {
                  for (int s = 0; s < SERVERS; s++) {
                    makeUnwritable(cluster.localDir(s, 0));
                  }
                  faults.incrementAndGet();
                })
            .onceWhen(
                e -> e.stageId() != MAP_STAGE && e.end() && e.success(),
                () -> {
                  spanningPartitions.set(partitionsOnBothDisks());
                  // One copy: every server's first directory goes, so that blocks are surely lost.
                  // Two copies: the one of the server holding most there, so that a replica is
                  // left.
                  List<Integer> victims = new ArrayList<>();
                  if (replicas == 1) {
                    for (int s = 0; s < SERVERS; s++) {
                      victims.add(s);
                    }
                  } else {
                    victims.add(serverWithMostDataInFirstDir());
                  }
                  for (int s : victims) {
                    Path dir = cluster.localDir(s, 0);
                    makeWritable(dir);
                    unwritable.remove(dir);
                    Path gone = dir.resolveSibling("disk-0.failed");
                    try {
                      Files.move(dir, gone);
                    } catch (IOException e) {
                      throw new IllegalStateException(e);
                    }
                    moved.add(new Path[] {dir, gone});
                  }
                  vanished.addAll(victims);
                  faults.incrementAndGet();
                });
    List<Tuple2<Integer, long[]>> answer = ServerLossTest.job(conf(replicas), observer);
    assertEquals(2, faults.get(), "both faults struck while the job ran");
    ServerLossTest.assertSameAnswer(expected, answer);
    boolean someFirstDiskOut = false;
    for (ShuffleServer server : cluster.servers()) {
      LocalDisk first = server.disks().disks().get(0);
      LocalDisk second = server.disks().disks().get(1);
      someFirstDiskOut |= !first.isHealthy();
      assertTrue(second.isHealthy(), "a server's second directory stays in rotation");
    }
    assertTrue(someFirstDiskOut, "the directories that failed were taken out of rotation");
    assertTrue(
        vanished.stream()
            .anyMatch(s -> cluster.servers().get(s).disks().disks().get(0).isUnreadable()),
        "a read met a directory that disappeared and took it out for reads");
    return observer;
  }

  private static int serverWithMostDataInFirstDir() {
    int best = 0;
    long most = -1;
    for (int s = 0; s < SERVERS; s++) {
      try (var files = Files.walk(cluster.localDir(s, 0))) {
        long n = files.filter(f -> f.toString().endsWith(".data")).count();
        if (n > most) {
          most = n;
          best = s;
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return best;
  }

  /** Partitions, over all servers, with file pairs on both of their server's directories. */
  private static int partitionsOnBothDisks() {
    int n = 0;
    for (int s = 0; s < SERVERS; s++) {
      ShuffleServer server = cluster.servers().get(s);
      Path first = cluster.localDir(s, 0);
      Path second = cluster.localDir(s, 1);
      for (var app : server.store().applications()) {
        for (var shuffle : app.shuffles()) {
          for (PartitionState p : shuffle.partitions()) {
            PartitionFiles files = p.files();
            if (files == null) {
              continue;
            }
            List<Path> paths = files.files();
            if (paths.stream().anyMatch(f -> f.startsWith(first))
                && paths.stream().anyMatch(f -> f.startsWith(second))) {
              n++;
            }
          }
        }
      }
    }
    return n;
  }

  @Test
  void withTwoCopiesBrokenDirectoriesRerunNoStage() {
    AtomicInteger spanning = new AtomicInteger();
    JobObserver observer = runBreakingDisks(2, spanning);
    assertTrue(
        spanning.get() > 0,
        "some partitions continued on the second directory after the first stopped taking writes");
    observer
        .submissions()
        .forEach(
            (stage, n) ->
                assertEquals(
                    1,
                    n,
                    "submissions of stage " + stage + "; task failures: " + observer.failures()));
  }

  @Test
  void withOneCopyADirectoryThatDisappearsRerunsTheMapStageOnce() {
    JobObserver observer = runBreakingDisks(1, new AtomicInteger());
    assertEquals(
        2,
        observer.submissions().get(MAP_STAGE),
        "map stage submissions; task failures: " + observer.failures());
  }

  /**
   * As root, permissions do not stop writes: the tree is made immutable ({@code chattr +i}), which
   * refuses new files and writes to files already open. Otherwise it is made read-only.
   */
  private void makeUnwritable(Path dir) {
    run(
        isRoot()
            ? List.of("chattr", "-R", "+i", dir.toString())
            : List.of("chmod", "-R", "a-w", dir.toString()));
    unwritable.add(dir);
  }

  private static void makeWritable(Path dir) {
    run(
        isRoot()
            ? List.of("chattr", "-R", "-i", dir.toString())
            : List.of("chmod", "-R", "u+w", dir.toString()));
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static void run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(command + " failed: " + output);
      }
    } catch (IOException e) {
      throw new IllegalStateException(command + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
