package io.sluice.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.common.testing.Await;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;

/**
 * A Spark standalone cluster on a {@link NetBed}: Spark's own {@code Master} on the bed's host
 * {@code master} and one {@code Worker} on each of the given hosts, started from the Spark
 * installation the build assembles ({@code SPARK_HOME}, Maven Central's jars). A worker starts its
 * executors as its own children, so they run on the worker's host, behind its link: cutting or
 * capping that link cuts or caps the executors. The driver is the test's JVM, on the machine's own
 * side of the bed's bridge ({@link NetBed#gateway}), an address of its own apart from every worker
 * and server; {@link #conf} points a session at the cluster.
 */
final class SparkStandalone implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int MASTER_PORT = 7077;
  private static final int MASTER_UI_PORT = 8080;

  /** Cores each worker offers; each application takes one executor of this many per worker. */
  private static final int CORES = 2;

  /** The Spark setting after which an executor whose heart-beats stopped is declared lost. */
  static final String EXECUTOR_LOSS_TIMEOUT = "spark.storage.blockManagerHeartbeatTimeoutMs";

  /** Seconds without heart-beats after which the master declares a worker lost (Spark: 60). */
  private static final int WORKER_LOSS_TIMEOUT_SECONDS = 900;

  private final NetBed bed;
  private final Path root;
  private final List<String> workerHosts;
  private final List<Process> processes = new ArrayList<>();

  /** Starts the master and the workers, and waits until every worker has registered. */
  SparkStandalone(NetBed bed, List<String> workerHosts) throws Exception {
    this.bed = bed;
    this.workerHosts = List.copyOf(workerHosts);
    this.root = Files.createTempDirectory("sluice-standalone");
    try {
      // The master declares a worker lost after WORKER_LOSS_TIMEOUT without heart-beats, and
      // Spark then runs again the maps that ran on that host (MapOutputLocation): a worker whose
      // link a test cuts must stay known for the whole test, however slow the machine.
      start(
          "master",
          List.of("-Dspark.worker.timeout=" + WORKER_LOSS_TIMEOUT_SECONDS),
          "org.apache.spark.deploy.master.Master",
          "--host",
          bed.address("master"),
          "--port",
          String.valueOf(MASTER_PORT),
          "--webui-port",
          String.valueOf(MASTER_UI_PORT));
      Daemons.awaitPort(bed.address("master"), MASTER_PORT, root.resolve("master.log"));
      for (String host : workerHosts) {
        Path work = Files.createDirectories(root.resolve(host + "-work"));
        start(
            host,
            List.of(),
            "org.apache.spark.deploy.worker.Worker",
            "--host",
            bed.address(host),
            "--cores",
            String.valueOf(CORES),
            "--memory",
            "1g",
            "--work-dir",
            work.toString(),
            masterUrl());
      }
      awaitWorkers(workerHosts.size());
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  String masterUrl() {
    return "spark://" + bed.address("master") + ":" + MASTER_PORT;
  }

  int executors() {
    return workerHosts.size();
  }

  /**
   * A session's settings for this cluster: one executor of {@value #CORES} cores per worker, with
   * the shaded client and this module's test classes (the jobs' closures) on its class path, and
   * executors heart-beating every second (checked every second), so that a test may declare an
   * executor lost sooner than Spark's 120 s ({@link #EXECUTOR_LOSS_TIMEOUT}).
   */
  SparkConf conf(String appName) throws IOException {
    String driverHost = bed.gateway();
    return SparkSessions.base(masterUrl(), appName)
        .set("spark.driver.host", driverHost)
        .set("spark.driver.bindAddress", driverHost)
        .set("spark.executor.cores", String.valueOf(CORES))
        .set("spark.cores.max", String.valueOf(CORES * workerHosts.size()))
        .set("spark.executor.memory", "512m")
        .set(
            "spark.executor.extraClassPath",
            Artifacts.shadedClientJar() + ":" + Artifacts.testClasses())
        .set("spark.executor.heartbeatInterval", "1s")
        // How often the driver looks for executors whose heart-beats stopped (60 s by default).
        .set("spark.network.timeoutInterval", "1s");
  }

  /** Waits until the master counts {@code n} workers alive. */
  void awaitWorkers(int n) throws InterruptedException {
    Await.until(
        () -> aliveWorkers() == n,
        n + " Spark workers registered with " + masterUrl() + " (logs under " + root + ")");
  }

  private int aliveWorkers() {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://" + bed.address("master") + ":" + MASTER_UI_PORT + "/json/"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      int alive = 0;
      for (JsonNode worker : JSON.readTree(response.body()).path("workers")) {
        if ("ALIVE".equals(worker.path("state").asText())) {
          alive++;
        }
      }
      return alive;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private void start(String host, List<String> jvmOptions, String main, String... args)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-cp",
                Artifacts.sparkHome().resolve("jars") + "/*",
                "-Xmx256m",
                "-XX:+IgnoreUnrecognizedVMOptions",
                "@" + ProjectRoot.get().resolve("bin/spark-java-opens.args")));
    command.addAll(jvmOptions);
    command.add(main);
    command.addAll(List.of(args));
    // SPARK_HOME and SPARK_SCALA_VERSION come from the build (see this module's POM): a worker
    // builds its executors' command from them.
    processes.add(
        new ProcessBuilder(bed.command(host, command))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve(host + ".log").toFile()))
            .start());
  }

  @Override
  public void close() throws IOException {
    for (Process p : processes) {
      // The workers' executors first: they are the workers' children.
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
