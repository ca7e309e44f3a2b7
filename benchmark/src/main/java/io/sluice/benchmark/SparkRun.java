package io.sluice.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One {@code SparkSubmit} of a benchmark job in its own JVM, as {@code spark-submit} would start it:
 * Spark's jars from {@code SPARK_HOME/jars}, the benchmark jar as the application, and for runs
 * through Sluice the shaded client jar on the driver's and executors' class path. The JVM is the
 * driver (client deploy mode), so its heap is the driver memory; in local mode it runs the tasks too.
 * Output goes to a log file; the lines the job marks as its answers are echoed.
 */
public final class SparkRun {
  private final List<String> command;
  private final Path log;
  private final Predicate<String> echo;

  private SparkRun(List<String> command, Path log, Predicate<String> echo) {
    this.command = command;
    this.log = log;
    this.echo = echo;
  }

  /**
   * Builds the command line.
   *
   * @param withClientJar whether the shaded client jar goes on the class path
   * @param conf Spark settings, passed as {@code --conf}
   * @param echo which lines of the job's output to print here as well
   */
  public static SparkRun of(SparkInstall install, String driverMemory, String master,
      boolean withClientJar, Map<String, String> conf, String mainClass, List<String> jobArgs,
      Path log, Predicate<String> echo) {
    List<String> cmd = new ArrayList<>();
    cmd.add(install.java());
    cmd.add("-Xmx" + driverMemory);
    cmd.addAll(install.sparkJavaOptions());
    String classPath = install.sparkHome().resolve("jars") + "/*";
    if (withClientJar) {
      classPath += ":" + install.shadedClientJar();
    }
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.add("--master");
    cmd.add(master);
    conf.forEach((k, v) -> {
      cmd.add("--conf");
      cmd.add(k + "=" + v);
    });
    cmd.add("--class");
    cmd.add(mainClass);
    cmd.add(install.benchmarkJar().toString());
    cmd.addAll(jobArgs);
    return new SparkRun(List.copyOf(cmd), log, echo);
  }

  public List<String> command() {
    return command;
  }

  /** Runs to the end; returns the exit code. */
  public int run(Map<String, String> env) throws IOException, InterruptedException {
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
        if (echo.test(line)) {
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
