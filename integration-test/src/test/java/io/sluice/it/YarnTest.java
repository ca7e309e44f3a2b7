package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.MiniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sluice on Hadoop's own YARN, as a platform team runs it: the README's example job, and the TPC-DS
 * benchmark's command against the cluster (with its tables on HDFS). YARN ({@link YarnCluster})
 * runs the application master and two executors in containers of their own, and the client jar
 * reaches them as docs/client.md's YARN section says: with {@code --jars}, which YARN localizes
 * into every container's working directory, and {@code spark.executor.extraClassPath} naming the
 * jar's file there (and, in cluster mode, {@code spark.driver.extraClassPath} for the driver in the
 * application master's container). The answer, YARN's own final status of the application, the
 * bytes the servers took, and every container's log (for a leaked buffer) are checked.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class YarnTest {
  private static final long RECORDS = 400_000;
  private static final int KEYS = 5_000;
  private static final Pattern RESULT = Pattern.compile("Result: (\\d+) keys, checksum (-?\\d+)");

  private static Path root;
  private static MiniCluster sluice;
  private static YarnCluster yarn;

  @BeforeAll
  static void start() throws Exception {
    root = Files.createTempDirectory("sluice-yarn");
    sluice = new MiniCluster(2, Map.of());
    yarn = new YarnCluster(root);
  }

  @AfterAll
  static void stop() throws Exception {
    if (yarn != null) {
      yarn.close();
    }
    if (sluice != null) {
      sluice.close();
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * Client mode, the driver where the job is submitted, and cluster mode, where the driver too runs
   * in a container. Client mode runs with {@code -Pspark-lines-full} only (about 30 s of the
   * suite's time): the executors' containers, where the jar must be found, are the same, and the
   * benchmark's run on YARN is in client mode.
   */
  @ParameterizedTest(name = "{0} mode")
  @ValueSource(strings = {"client", "cluster"})
  void theExampleJobRunsOnYarnThroughSluice(String deployMode) throws Exception {
    assumeTrue(
        deployMode.equals("cluster") || Boolean.getBoolean(SparkLinesSource.FULL_PROPERTY),
        "the example job in client mode on YARN runs with -Pspark-lines-full");
    Path jar = Artifacts.shadedClientJar();
    long pushedBefore = sluice.pushedBytes();
    List<String> args = yarnArgs(deployMode, jar);
    args.addAll(List.of("--conf", "spark.executor.extraClassPath=" + jar.getFileName()));
    boolean cluster = deployMode.equals("cluster");
    if (cluster) {
      args.addAll(List.of("--conf", "spark.driver.extraClassPath=" + jar.getFileName()));
    }
    Daemons.Result run = submit(args);
    assertEquals(0, run.exitCode(), run.output() + containerLogTails());
    assertEquals(
        FinalApplicationStatus.SUCCEEDED, yarn.lastApplicationStatus(), containerLogTails());

    // In cluster mode the driver is the application master: its output is a container's stdout.
    String driverOutput = cluster ? clusterDriverOutput() : run.output();
    Matcher result = RESULT.matcher(driverOutput);
    assertTrue(result.find(), driverOutput);
    assertEquals(KEYS, Integer.parseInt(result.group(1)));
    assertEquals(SparkSubmitTest.expectedChecksum(RECORDS, KEYS), Long.parseLong(result.group(2)));
    assertTrue(driverOutput.contains("shuffle manager " + SparkSessions.MANAGER), driverOutput);
    assertTrue(sluice.pushedBytes() > pushedBefore, "the executors pushed to Sluice's servers");
    SubmittedJob.assertNoLeak(run);
    for (Path log : yarn.containerLogs()) {
      assertFalse(Files.readString(log).contains("LEAK:"), "a leaked buffer in " + log);
    }
  }

  /**
   * The jar only in {@code --jars}, in cluster mode: the driver (in the application master's
   * container, where YARN put the jar in the working directory but on no class path) refuses to
   * start, naming the file to give {@code spark.executor.extraClassPath}, instead of waiting for
   * executors that cannot load the shuffle manager.
   */
  @Test
  void aJarOnlyInJarsIsRefusedByTheDriverNamingTheSetting() throws Exception {
    Path jar = Artifacts.shadedClientJar();
    List<String> args = yarnArgs("cluster", jar);
    // No attempt after the first: the refusal would repeat.
    args.addAll(List.of("--conf", "spark.yarn.maxAppAttempts=1"));
    Daemons.Result run = submit(args);
    assertTrue(run.exitCode() != 0, run.output());
    assertEquals(FinalApplicationStatus.FAILED, yarn.lastApplicationStatus());
    String refusal =
        "Sluice's client jar " + jar.getFileName() + " reached the driver only " + "through --jars";
    boolean refused = false;
    for (Path log : yarn.containerLogs()) {
      String text = Files.readString(log);
      refused |= text.contains(refusal) && text.contains("spark.executor.extraClassPath");
    }
    assertTrue(refused, "the driver's refusal in its container's log:" + containerLogTails());
  }

  /**
   * The TPC-DS benchmark against a cluster, as docs/tpc-benchmark.md says to run it on one: {@code
   * bin/sluice-bench} with {@code --master yarn} (executors in YARN's containers, the driver here),
   * the tables generated into and read from HDFS (Hadoop's own MiniDFSCluster, through an {@code
   * hdfs://} URI), and Sluice an existing deployment named with {@code --coordinators} (this
   * class's servers), the client jar brought with the job. Both modes must give the same answers,
   * the sluice mode must push through the servers, and YARN must see the applications succeed. Runs
   * with {@code -Pspark-lines-full} only (two and a half minutes, three YARN applications): by
   * default the benchmark's TPC-DS smoke run covers the command and its report on the machine, and
   * {@link #theExampleJobRunsOnYarnThroughSluice} the client on YARN.
   */
  @Test
  void theTpcdsBenchmarkRunsOnYarnWithItsTablesOnHdfs() throws Exception {
    assumeTrue(
        Boolean.getBoolean(SparkLinesSource.FULL_PROPERTY),
        "the TPC-DS benchmark on YARN runs with -Pspark-lines-full");
    Configuration hadoop = new Configuration();
    hadoop.set(
        MiniDFSCluster.HDFS_MINIDFS_BASEDIR,
        Files.createDirectories(root.resolve("dfs")).toString());
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(hadoop).numDataNodes(1).build();
    try {
      dfs.waitActive();
      String data = dfs.getURI() + "/tpc";
      Path markdown = root.resolve("tpcds.md");
      long pushedBefore = sluice.pushedBytes();
      String javaHome = System.getProperty("java.home");
      Daemons.Result run =
          Daemons.in(Path.of(System.getProperty("sluice.project.root")).toAbsolutePath())
              .run(
                  Map.of("YARN_CONF_DIR", yarn.confDir().toString()),
                  Duration.ofMinutes(8),
                  "bin/sluice-bench",
                  "--tpcds",
                  "--scale",
                  "smoke",
                  "--queries",
                  "q3",
                  "--rounds",
                  "1",
                  "--no-warmup",
                  "--run-timeout",
                  "4m",
                  "--master",
                  "yarn",
                  "--coordinators",
                  sluice.coordinatorAddress(),
                  "--coordinator-http",
                  "127.0.0.1:" + sluice.coordinator().httpPort(),
                  "--data",
                  data,
                  "--driver-memory",
                  "1g",
                  "--executor-memory",
                  "512m",
                  "--conf",
                  "spark.executor.instances=2",
                  "--conf",
                  "spark.executor.cores=1",
                  "--conf",
                  "spark.yarn.am.memory=512m",
                  "--conf",
                  "spark.yarn.jars=local:" + Artifacts.sparkHome().resolve("jars") + "/*",
                  "--conf",
                  "spark.yarn.appMasterEnv.JAVA_HOME=" + javaHome,
                  "--conf",
                  "spark.executorEnv.JAVA_HOME=" + javaHome,
                  "--output",
                  root.resolve("bench").toString(),
                  "--markdown",
                  markdown.toString(),
                  "--chart",
                  "-");
      assertEquals(0, run.exitCode(), run.output() + containerLogTails());
      assertTrue(
          run.output()
              .contains(
                  "| Every query gave the same row count and checksum in every round and mode"
                      + " | 1 of 1 queries | **met** |"),
          run.output());
      assertTrue(run.output().contains("Query q3: 20 rows"), run.output());
      assertTrue(
          run.output().contains("Tables complete at " + data + "/tpcds-sf-0.01: "), run.output());
      try (FileSystem fs = FileSystem.newInstance(dfs.getURI(), new Configuration())) {
        assertTrue(
            fs.exists(new org.apache.hadoop.fs.Path("/tpc/tpcds-sf-0.01/_COMPLETE")),
            "the tables were not written to HDFS");
      }
      assertTrue(sluice.pushedBytes() > pushedBefore, "the executors pushed to Sluice's servers");
      assertEquals(FinalApplicationStatus.SUCCEEDED, yarn.lastApplicationStatus());
      String report = Files.readString(markdown);
      assertTrue(report.contains("`--master yarn`"), report);
      assertTrue(
          report.contains("the deployment of coordinators " + sluice.coordinatorAddress()), report);
      // The deployment's servers, found through the coordinator's /status, were measured.
      assertTrue(report.contains("Sluice's servers during each query"), report);
      for (Path log : yarn.containerLogs()) {
        assertFalse(Files.readString(log).contains("LEAK:"), "a leaked buffer in " + log);
      }
    } finally {
      dfs.shutdown();
    }
  }

  /** Submission to the YARN cluster with the jar in --jars, the job small and the JVMs too. */
  private static List<String> yarnArgs(String deployMode, Path jar) {
    String javaHome = System.getProperty("java.home");
    List<String> args = new ArrayList<>(SubmittedJob.throughSluice(sluice));
    args.addAll(
        List.of(
            "--deploy-mode",
            deployMode,
            "--conf",
            "spark.executor.instances=2",
            "--conf",
            "spark.executor.cores=1",
            "--conf",
            "spark.executor.memory=512m",
            "--conf",
            "spark.driver.memory=512m",
            "--conf",
            "spark.yarn.am.memory=512m",
            // Spark's own jars from this machine's installation, as a cluster's spark.yarn.archive
            // would hold them; Sluice's jar is shipped with the job.
            "--conf",
            "spark.yarn.jars=local:" + Artifacts.sparkHome().resolve("jars") + "/*",
            "--jars",
            jar.toString(),
            "--conf",
            "spark.yarn.appMasterEnv.JAVA_HOME=" + javaHome,
            "--conf",
            "spark.executorEnv.JAVA_HOME=" + javaHome));
    return args;
  }

  private static Daemons.Result submit(List<String> args) throws Exception {
    // SubmittedJob names the jar in spark.executor.extraClassPath by its path on this machine;
    // the YARN cases set it themselves (a later --conf wins) or, for the refusal, clear it.
    List<String> all = new ArrayList<>(List.of("--conf", "spark.executor.extraClassPath="));
    all.addAll(args);
    return SubmittedJob.start(
            root,
            Map.of("YARN_CONF_DIR", yarn.confDir().toString()),
            "3.5",
            "yarn",
            "io.sluice.examples.ShuffleExample",
            all,
            List.of(String.valueOf(RECORDS), String.valueOf(KEYS)))
        .await(Duration.ofMinutes(6));
  }

  /** The stdout of the container that ran the driver in cluster mode. */
  private static String clusterDriverOutput() throws IOException {
    StringBuilder found = new StringBuilder();
    for (Path log : yarn.containerLogs()) {
      if (log.getFileName().toString().equals("stdout")) {
        String text = Files.readString(log);
        if (RESULT.matcher(text).find()) {
          found.append(text);
        }
      }
    }
    return found.toString();
  }

  /** The last lines of every container log, for a failure's message. */
  private static String containerLogTails() throws IOException {
    StringBuilder out = new StringBuilder();
    for (Path log : yarn.containerLogs()) {
      List<String> lines = Files.readAllLines(log);
      out.append("\n== ")
          .append(log)
          .append('\n')
          .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
    }
    return out.toString();
  }
}
