package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.server.ServerOptions;
import io.sluice.server.ShuffleServer;
import io.sluice.testcluster.MetricsScrape;
import io.sluice.testcluster.MiniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * The HDFS tier against Hadoop's MiniDFSCluster: the servers' local directories live on a real file
 * system of 1 MiB (tmpfs) that fills up while the map stage pushes several times that, so writes
 * there fail with "No space left on device" and the rest goes to HDFS. The answer equals the
 * built-in shuffle's, Spark sees no failed task and no stage re-run, both tiers served the reduce
 * stage, and the application's data on HDFS is gone once it ends.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class HdfsTierTest {
  private static final int SERVERS = 2;

  /** The size of the tmpfs that holds both servers' local directories. */
  private static final String LOCAL_SIZE = "1m";

  private static List<Tuple2<Integer, long[]>> expected;
  private static MiniDFSCluster dfs;
  private static Path localDirs;
  private static MiniCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    expected =
        ServerLossTest.job(SparkSessions.base("local[2]", "hdfs-reference"), new JobObserver());
    Configuration hadoop = new Configuration();
    Path dfsBase = Files.createTempDirectory("sluice-minidfs");
    hadoop.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dfsBase.toString());
    dfs = new MiniDFSCluster.Builder(hadoop).numDataNodes(1).build();
    dfs.waitActive();
    localDirs = Files.createTempDirectory("sluice-small-disk");
    run("mount", "-t", "tmpfs", "-o", "size=" + LOCAL_SIZE, "tmpfs", localDirs.toString());
    cluster =
        new MiniCluster(
            localDirs,
            SERVERS,
            1,
            Map.of(
                ServerOptions.HDFS_DIR.key(),
                dfs.getURI() + "/sluice",
                ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                "64k"),
            Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      try {
        if (localDirs != null) {
          run("umount", localDirs.toString());
        }
      } finally {
        if (dfs != null) {
          dfs.shutdown(true);
        }
      }
    }
  }

  @Test
  void localDirsThatFillUpMidJobHandTheRestToHdfsAndTheAnswerIsRight() throws Exception {
    JobObserver observer = new JobObserver();
    SparkConf conf =
        SparkSessions.withSluice(SparkSessions.base("local[2,4]", "hdfs-tier"), cluster)
            .set("spark.sluice.block.size", "32k")
            .set("spark.sluice.push.batch.size", "128k");
    List<Tuple2<Integer, long[]>> answer = ServerLossTest.job(conf, observer);

    ServerLossTest.assertSameAnswer(expected, answer);
    assertTrue(observer.failures().isEmpty(), "no task failed: " + observer.failures());
    observer
        .submissions()
        .forEach((stage, n) -> assertEquals(1, n, "submissions of stage " + stage));

    double toLocal = 0;
    double toHdfs = 0;
    double fromHdfs = 0;
    double fromDisk = 0;
    for (ShuffleServer server : cluster.servers()) {
      MetricsScrape metrics = MetricsScrape.fetch(server.httpPort());
      toLocal += metrics.sum("sluice_server_flushed_bytes_total");
      toHdfs += metrics.sum("sluice_server_hdfs_flushed_bytes_total");
      for (MetricsScrape.Sample s : metrics.samples()) {
        if (s.name().equals("sluice_server_read_bytes_total")) {
          if (s.labels().contains("\"hdfs\"")) {
            fromHdfs += s.value();
          } else if (s.labels().contains("\"disk\"")) {
            fromDisk += s.value();
          }
        }
      }
    }
    long localBytes = 1 << 20;
    assertTrue(toLocal > 0 && toLocal <= localBytes, "the local dirs took what fit: " + toLocal);
    assertTrue(
        toHdfs > 0 && toLocal + toHdfs > localBytes,
        "HDFS took what did not fit: " + toHdfs + " bytes, beside " + toLocal + " on local dirs");
    assertTrue(
        fromHdfs > 0 && fromDisk > 0,
        "readers read both tiers: " + fromHdfs + " from HDFS, " + fromDisk + " from disk");

    // The application ended with the session: its directories on HDFS go.
    try (FileSystem fs = FileSystem.newInstance(dfs.getURI(), new Configuration())) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (true) {
        List<String> left = applicationDirs(fs);
        if (left.isEmpty()) {
          break;
        }
        assertTrue(System.nanoTime() < deadline, "application data left on HDFS: " + left);
        Thread.sleep(50);
      }
    }
  }

  /** Directories under each server's directory on HDFS, other than its trash. */
  private static List<String> applicationDirs(FileSystem fs) throws IOException {
    List<String> dirs = new ArrayList<>();
    for (ShuffleServer server : cluster.servers()) {
      for (FileStatus child : fs.listStatus(server.hdfs().root())) {
        if (!child.getPath().getName().equals("sluice+trash")) {
          dirs.add(child.getPath().toString());
        }
      }
    }
    return dirs;
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IOException(
          String.join(" ", command)
              + " failed (this test needs root to mount "
              + "a small tmpfs): "
              + output);
    }
  }
}
