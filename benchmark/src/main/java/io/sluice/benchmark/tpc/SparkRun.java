package io.sluice.benchmark.tpc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code SparkSubmit} of {@link TpcJob} in its own JVM, as {@code spark-submit} would start it:
 * Spark's jars from {@code SPARK_HOME/jars}, the benchmark jar as the application, and for the
 * {@code sluice} mode the shaded client jar on the driver's and executors' class path. The JVM is
 * the driver (client deploy mode), so its heap is the driver memory; in local mode it runs the
 * tasks too. Output goes to a log file; the job's one-line answers are echoed.
 */
final class SparkRun {
  private final List<String> command;
  private final Path log;

  private SparkRun(List<String> command, Path log) {
    this.command = command;
    this.log = log;
  }

  /** Builds the command line; {@code jobArgs} go to {@link TpcJob}. */
  static SparkRun of(TpcSettings s, Mode mode, Map<String, String> modeConf, List<String> jobArgs,
      Path log) {
    List<String> cmd = new ArrayList<>();
    cmd.add(s.java());
    cmd.add("-Xmx" + s.driverMemory());
    cmd.addAll(s.sparkJavaOptions());
    String classPath = s.sparkHome().resolve("jars") + "/*";
    if (mode.usesClientJar()) {
      classPath += ":" + s.shadedClientJar();
    }
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.add("--master");
    cmd.add(s.master());
    Map<String, String> conf = new LinkedHashMap<>(s.commonSparkConf());
    conf.putAll(modeConf);
    conf.forEach((k, v) -> {
      cmd.add("--conf");
      cmd.add(k + "=" + v);
    });
    cmd.add("--class");
    cmd.add(TpcJob.class.getName());
    cmd.add(s.benchmarkJar().toString());
    cmd.addAll(jobArgs);
    return new SparkRun(List.copyOf(cmd), log);
  }

  List<String> command() {
    return command;
  }

  /** Runs to the end; returns the exit code. */
  int run(Map<String, String> env) throws IOException, InterruptedException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    Thread stopper = new Thread(p::destroyForcibly);
    Runtime.getRuntime().addShutdownHook(stopper);
    try (BufferedReader in = new BufferedReader(
            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      out.write(String.join(" ", command) + "\n\n");
      String line;
      while ((line = in.readLine()) != null) {
        out.write(line);
        out.write('\n');
        if (line.startsWith("Query ") || line.startsWith("Generated ")) {
          System.out.println("  " + line);
        }
      }
      return p.waitFor();
    } finally {
      p.destroyForcibly();
      Runtime.getRuntime().removeShutdownHook(stopper);
    }
  }
}
