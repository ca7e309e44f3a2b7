package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.server.ServerOptions;
import io.sluice.server.ShuffleServer;
import io.sluice.testcluster.MiniCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * With {@code spark.io.encryption.enabled}, map tasks encrypt every block with Spark's I/O key
 * before it leaves the executor: the answer equals the built-in shuffle's, and the files on the
 * servers' disks do not hold a marker that every record carries in clear. The same job without
 * encryption (and without compression) leaves the marker on disk, so the check can fail.
 */
class EncryptionTest {
  private static final String MARKER = "PLAINTEXT-MARKER-7f3a";
  private static final int RECORDS = 100_000;

  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    // Small flush threshold: every partition's blocks reach the disk during the job.
    cluster = new MiniCluster(2, Map.of(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "64k"));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  /** Records whose values carry the marker; the answer is a count and a checksum per key. */
  private static List<Tuple2<Integer, Long>> job(JavaSparkContext sc) {
    List<Integer> seeds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      seeds.add(i);
    }
    return sc.parallelize(seeds, 4)
        .flatMapToPair(
            seed -> {
              List<Tuple2<Integer, String>> out = new ArrayList<>();
              for (int i = 0; i < RECORDS / 4; i++) {
                int n = seed * RECORDS + i;
                out.add(new Tuple2<>(n % 97, MARKER + " row " + n));
              }
              return out.iterator();
            })
        .groupByKey(6)
        .mapToPair(
            e -> {
              long sum = 0;
              for (String v : e._2()) {
                sum += v.hashCode();
              }
              return new Tuple2<>(e._1(), sum);
            })
        .sortByKey()
        .collect();
  }

  private static SparkConf conf(boolean sluice, boolean encrypted) {
    SparkConf conf =
        SparkSessions.base("local[2]", "encryption")
            .set("spark.shuffle.compress", "false")
            .set("spark.io.encryption.enabled", String.valueOf(encrypted))
            // The job's shuffles stay on the servers until the application ends: Spark's cleaner
            // would remove them once their RDDs are collected, maybe while the files are read.
            .set("spark.cleaner.referenceTracking", "false");
    return sluice ? SparkSessions.withSluice(conf, cluster) : conf;
  }

  /** Runs the job, and while the application still holds its data, looks at the servers' files. */
  private static <T> T run(
      SparkConf conf, Function<String, T> whileRunning, List<Tuple2<Integer, Long>> answer) {
    SparkSession spark = SparkSessions.start(conf, Map.of());
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Tuple2<Integer, Long>> result = job(sc);
      assertEquals(answer, result);
      return whileRunning.apply(sc.sc().applicationId());
    } finally {
      spark.stop();
    }
  }

  @Test
  void serversNeverHoldTheRecordsInClear() throws Exception {
    List<Tuple2<Integer, Long>> builtin;
    SparkSession reference = SparkSessions.start(conf(false, true), Map.of());
    try {
      builtin = job(JavaSparkContext.fromSparkContext(reference.sparkContext()));
    } finally {
      reference.stop();
    }

    boolean clearWhenUnencrypted = run(conf(true, false), EncryptionTest::markerOnDisk, builtin);
    assertTrue(clearWhenUnencrypted, "without encryption the marker is on disk (control)");

    long flushedBefore = flushedBytes();
    boolean clearWhenEncrypted =
        run(
            conf(true, true),
            app -> {
              assertTrue(flushedBytes() > flushedBefore, "the encrypted blocks reached the disk");
              return markerOnDisk(app);
            },
            builtin);
    assertFalse(clearWhenEncrypted, "encrypted blocks hide the marker");
  }

  private static long flushedBytes() {
    double sum = 0;
    for (ShuffleServer s : cluster.servers()) {
      Double v = s.metrics().registry().getSampleValue("sluice_server_flushed_bytes_total");
      sum += v == null ? 0 : v;
    }
    return (long) sum;
  }

  /**
   * Whether any file of the application on the servers' disks holds the marker, once its blocks
   * were flushed (waits until a data file of the application exists).
   */
  private static boolean markerOnDisk(String appId) {
    byte[] marker = MARKER.getBytes(StandardCharsets.US_ASCII);
    long deadline = System.nanoTime() + 30_000_000_000L;
    try {
      while (true) {
        List<Path> files = dataFiles(appId);
        if (!files.isEmpty()) {
          for (Path f : files) {
            if (indexOf(Files.readAllBytes(f), marker) >= 0) {
              return true;
            }
          }
          return false;
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no data file of " + appId + " under " + cluster.root());
        }
        Thread.sleep(50);
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static List<Path> dataFiles(String appId) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> all = Files.walk(cluster.root())) {
      all.filter(Files::isRegularFile)
          .filter(f -> f.toString().contains("/" + appId + "/"))
          .filter(f -> f.getFileName().toString().endsWith(".data"))
          .filter(f -> f.toFile().length() > 0)
          .forEach(files::add);
    }
    return files;
  }

  private static int indexOf(byte[] data, byte[] pattern) {
    outer:
    for (int i = 0; i + pattern.length <= data.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (data[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
