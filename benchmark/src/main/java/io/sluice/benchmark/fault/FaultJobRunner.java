package io.sluice.benchmark.fault;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.SparkInstall;
import io.sluice.benchmark.SparkRun;
import io.sluice.testcluster.ProcessCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Submits {@link FaultBenchmarkJob} in a fresh {@code SparkSubmit} JVM, with Spark's built-in
 * shuffle or through a cluster, and reads the figures of its result line. The JVM is started
 * through {@code launcher} (empty here; {@code ip netns exec <namespace>} for a host of a test
 * bed).
 */
public record FaultJobRunner(
    SparkInstall install,
    String master,
    String driverMemory,
    int maps,
    int reduces,
    long records,
    Path out,
    Path results,
    List<String> launcher) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One run's figures, from the job's result line. */
  public record Outcome(
      String mode,
      int round,
      FaultBenchmarkJob.Scenario scenario,
      int replicas,
      int exit,
      double wallMs,
      double cpuMs,
      double taskCpuMs,
      boolean killed,
      int mapStageSubmissions,
      int stageSubmissions,
      int failedTasks,
      int fetchFailures,
      JsonNode answer,
      ServerFigures servers) {

    /** This outcome with what the servers did during the run. */
    public Outcome withServers(ServerFigures figures) {
      return new Outcome(
          mode,
          round,
          scenario,
          replicas,
          exit,
          wallMs,
          cpuMs,
          taskCpuMs,
          killed,
          mapStageSubmissions,
          stageSubmissions,
          failedTasks,
          fetchFailures,
          answer,
          figures);
    }
  }

  /**
   * Runs the job once.
   *
   * @param cluster null for Spark's built-in shuffle
   * @param victim the job's flags naming what to strike at the scenario's moment ({@code
   *     --kill-pid}, or {@code --netbed}, {@code --bed} and {@code --cut-host}); empty for nothing
   * @param extraConf further Spark settings (authentication, encryption)
   */
  public Outcome run(
      String mode,
      int round,
      FaultBenchmarkJob.Scenario scenario,
      int replicas,
      ProcessCluster cluster,
      List<String> victim,
      Map<String, String> extraConf)
      throws Exception {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.local.dir", out.resolve("spark-local").toString());
    conf.put("spark.serializer", "org.apache.spark.serializer.KryoSerializer");
    conf.put("spark.shuffle.push.enabled", "false");
    boolean sluice = cluster != null;
    if (sluice) {
      conf.putAll(install.sluiceConf(cluster.coordinatorAddress()));
      conf.put("spark.sluice.replicas", String.valueOf(replicas));
    }
    conf.putAll(extraConf);
    String name = mode + "-" + round + "-r" + replicas + "-" + scenario.label();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--scenario",
                scenario.label(),
                "--maps",
                String.valueOf(maps),
                "--reduces",
                String.valueOf(reduces),
                "--records",
                String.valueOf(records),
                "--result",
                results.toString()));
    args.addAll(victim);
    System.out.println("== " + name);
    long before = lines();
    int exit =
        SparkRun.of(
                install,
                driverMemory,
                master,
                sluice,
                conf,
                List.of(),
                FaultBenchmarkJob.class.getName(),
                args,
                out.resolve("logs").resolve(name + ".log"),
                line -> line.startsWith("Fault run "))
            .via(launcher)
            .run(Map.of(), null);
    List<String> all = Files.readAllLines(results, StandardCharsets.UTF_8);
    if (exit != 0 || all.size() == before) {
      System.out.println("  exited with " + exit + "; see " + out.resolve("logs"));
      return new Outcome(
          mode,
          round,
          scenario,
          replicas,
          exit == 0 ? -1 : exit,
          0,
          0,
          0,
          false,
          0,
          0,
          0,
          0,
          JSON.nullNode(),
          null);
    }
    JsonNode line = JSON.readTree(all.get(all.size() - 1));
    JsonNode submissions = line.path("stageSubmissions");
    int mapStage = Integer.MAX_VALUE;
    int total = 0;
    for (var it = submissions.fields(); it.hasNext(); ) {
      var e = it.next();
      mapStage = Math.min(mapStage, Integer.parseInt(e.getKey()));
      total += e.getValue().asInt();
    }
    return new Outcome(
        mode,
        round,
        scenario,
        replicas,
        exit,
        line.path("wallMs").asDouble(),
        line.path("cpuMs").asDouble(),
        line.path("taskCpuMs").asDouble(),
        line.path("killed").asBoolean(),
        submissions.path(String.valueOf(mapStage)).asInt(),
        total,
        line.path("failedTasks").asInt(),
        line.path("fetchFailures").asInt(),
        line.path("answer"),
        null);
  }

  /** The job's shuffled bytes: records of 100 bytes (a long key and a 92-byte value). */
  public double mib() {
    return maps * records * 100.0 / (1 << 20);
  }

  private long lines() throws IOException {
    return Files.exists(results) ? Files.readAllLines(results).size() : 0;
  }
}
