package io.sluice.benchmark.tpc;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * The TPC benchmark's SQL queries as a workload of another benchmark: {@link TpcJob} submitted in a
 * fresh JVM per run, on the master and through the launcher the caller chooses ({@code ip netns
 * exec} for a host of a test bed), with Spark's built-in shuffle or through a cluster; its figures
 * summed over the queries. The same settings, tables and job as {@code bin/sluice-bench}'s.
 */
public final class TpcWorkload {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TpcSettings settings;
  private final TpcSettings generation;

  /** One run's figures, summed over its queries. */
  public record Outcome(
      int exit, double wallMs, double taskCpuMs, double shuffleWriteBytes, JsonNode answer) {}

  /**
   * @param args {@code bin/sluice-bench}'s flags for the runs ({@code --scale}, {@code --queries},
   *     {@code --master}, {@code --conf}, ...); the tables are generated with the same flags but
   *     {@code local[2]} as the master
   */
  public TpcWorkload(List<String> args) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--markdown", "-", "--chart", "-"));
    this.settings = TpcSettings.parse(all.toArray(String[]::new));
    all.addAll(List.of("--master", "local[2]"));
    this.generation = TpcSettings.parse(all.toArray(String[]::new));
  }

  /** The queries, the scale factor and the suite, in words. */
  public String describe() {
    return "the TPC benchmark's queries "
        + settings.queries
        + " at scale factor "
        + ScaleFactor.format(settings.scale);
  }

  /** Generates the tables in this process's network (local[2]), unless they are there already. */
  public void ensureTables(Path logs) throws IOException, InterruptedException {
    TpcBenchmark.ensureTables(generation, logs);
  }

  /**
   * Runs the queries once.
   *
   * @param cluster null for Spark's built-in shuffle
   * @param replicas copies of every partition through Sluice
   * @param launcher the command prefix the driver's JVM starts with (empty for none)
   */
  public Outcome run(
      String name,
      ProcessCluster cluster,
      int replicas,
      Map<String, String> extraConf,
      List<String> launcher,
      Path logs)
      throws IOException, InterruptedException {
    Map<String, String> conf = new LinkedHashMap<>(extraConf);
    Mode mode = cluster == null ? Mode.BUILTIN : Mode.SLUICE;
    if (cluster != null) {
      conf.putAll(settings.sluiceConf(cluster.coordinatorAddress()));
      conf.put("spark.sluice.replicas", String.valueOf(replicas));
    }
    Path events = logs.resolve(name + ".jsonl");
    Files.deleteIfExists(events);
    System.out.println("== " + name);
    SparkRun run =
        TpcBenchmark.submit(
                settings,
                mode,
                conf,
                List.of(),
                TpcBenchmark.queryArgs(settings, events),
                logs.resolve(name + ".log"))
            .via(launcher);
    int exit = run.run(Map.of(), settings.runTimeout);
    double wallMs = 0;
    double cpuMs = 0;
    double written = 0;
    ObjectNode answer = JSON.createObjectNode();
    if (Files.exists(events)) {
      for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        Map<String, Object> q = JSON.readValue(line, new TypeReference<>() {});
        wallMs += Figures.num(q, "wallMs");
        cpuMs += Figures.stageSum(q, "cpuMs");
        written += Figures.stageSum(q, "shuffleWriteBytes");
        ObjectNode result = answer.putObject(String.valueOf(q.get("query")));
        if (q.containsKey("error")) {
          result.put("error", true);
          exit = exit == 0 ? -1 : exit;
        } else {
          result.put("rows", Figures.num(q, "rows"));
          result.put("checksum", String.valueOf(q.get("checksum")));
        }
      }
    }
    if (exit != 0) {
      System.out.println("  exited with " + exit + "; see " + logs.resolve(name + ".log"));
    }
    return new Outcome(exit, wallMs, cpuMs, written, answer);
  }
}
