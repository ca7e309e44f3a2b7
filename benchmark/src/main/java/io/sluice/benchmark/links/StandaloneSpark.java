package io.sluice.benchmark.links;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.SparkInstall;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Spark standalone cluster on a {@link Bed}: Spark's own {@code Master} on the host {@code
 * master} and a {@code Worker} on each worker host, from the Spark installation the build
 * assembles. A worker starts its executors as its children, so they run behind its host's link.
 */
final class StandaloneSpark implements AutoCloseable {
  static final int MASTER_PORT = 7077;
  private static final int MASTER_UI_PORT = 8080;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Bed bed;
  private final List<Process> processes = new ArrayList<>();

  /** Starts the master and the workers and waits until every worker has registered. */
  StandaloneSpark(
      Bed bed, SparkInstall install, List<String> workers, int cores, String memory, Path dir)
      throws IOException, InterruptedException {
    this.bed = bed;
    try {
      start(
          install,
          dir,
          "master",
          "org.apache.spark.deploy.master.Master",
          "--host",
          bed.address("master"),
          "--port",
          String.valueOf(MASTER_PORT),
          "--webui-port",
          String.valueOf(MASTER_UI_PORT));
      for (String host : workers) {
        Path work = Files.createDirectories(dir.resolve(host + "-work"));
        start(
            install,
            dir,
            host,
            "org.apache.spark.deploy.worker.Worker",
            "--host",
            bed.address(host),
            "--cores",
            String.valueOf(cores),
            "--memory",
            memory,
            "--work-dir",
            work.toString(),
            masterUrl());
      }
      awaitWorkers(workers.size(), dir);
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  String masterUrl() {
    return "spark://" + bed.address("master") + ":" + MASTER_PORT;
  }

  private void start(SparkInstall install, Path dir, String host, String main, String... args)
      throws IOException {
    List<String> command = new ArrayList<>(bed.launcher(host));
    command.addAll(
        List.of(install.java(), "-Xmx512m", "-cp", install.sparkHome().resolve("jars") + "/*"));
    command.addAll(install.sparkJavaOptions());
    command.add(main);
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(host + ".log").toFile()));
    // A worker builds its executors' command from these.
    pb.environment().put("SPARK_HOME", install.sparkHome().toString());
    pb.environment().put("SPARK_SCALA_VERSION", install.line().equals("4") ? "2.13" : "2.12");
    Files.createDirectories(dir);
    processes.add(pb.start());
  }

  private void awaitWorkers(int n, Path dir) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    URI status = URI.create("http://" + bed.address("master") + ":" + MASTER_UI_PORT + "/json/");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      try {
        JsonNode master =
            JSON.readTree(
                http.send(
                        HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body());
        int alive = 0;
        for (JsonNode worker : master.path("workers")) {
          if ("ALIVE".equals(worker.path("state").asText())) {
            alive++;
          }
        }
        if (alive == n) {
          return;
        }
      } catch (IOException e) {
        // not serving yet
      }
      Thread.sleep(200);
    }
    throw new IOException(
        "Spark's master at "
            + masterUrl()
            + " did not count "
            + n
            + " workers within 120 s; logs in "
            + dir);
  }

  @Override
  public void close() {
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
