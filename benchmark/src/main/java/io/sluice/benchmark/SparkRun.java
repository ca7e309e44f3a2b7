package io.sluice.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One {@code SparkSubmit} of a benchmark job in its own JVM, as {@code spark-submit} would start
 * it: Spark's jars from {@code SPARK_HOME/jars}, the jar with the job as the application, and for
 * runs through Sluice the shaded client jar on the driver's and executors' class path. The JVM is
 * the driver (client deploy mode), so its heap is the driver memory; in local mode it runs the
 * tasks too. Output goes to a log file; the lines the job marks as its answers are echoed.
 */
public final class SparkRun {
  private final List<String> command;
  private final Path sparkHome;
  private final Path log;
  private final Predicate<String> echo;

  private SparkRun(List<String> command, Path sparkHome, Path log, Predicate<String> echo) {
    this.command = command;
    this.sparkHome = sparkHome;
    this.log = log;
    this.echo = echo;
  }

  /**
   * Builds the command line.
   *
   * @param withClientJar whether the shaded client jar goes on the class path
   * @param conf Spark settings, passed as {@code --conf}
   * @param jvmOptions options of the SparkSubmit JVM besides the environment's
   * @param echo which lines of the job's output to print here as well
   */
  public static SparkRun of(
      SparkInstall install,
      String driverMemory,
      String master,
      boolean withClientJar,
      Map<String, String> conf,
      List<String> jvmOptions,
      String mainClass,
      List<String> jobArgs,
      Path log,
      Predicate<String> echo) {
    List<String> cmd = new ArrayList<>();
    cmd.add(install.java());
    cmd.add("-Xmx" + driverMemory);
    cmd.addAll(install.sparkJavaOptions());
    cmd.addAll(jvmOptions);
    String classPath = install.sparkHome().resolve("jars") + "/*";
    if (withClientJar) {
      classPath += ":" + install.shadedClientJar();
    }
    // As Spark's launcher does for a cluster: its client configuration (core-site.xml,
    // yarn-site.xml) goes on the class path, where Hadoop's clients look for it. Local runs keep
    // this machine's defaults whatever the environment names.
    for (String dir : List.of("HADOOP_CONF_DIR", "YARN_CONF_DIR")) {
      String value = System.getenv(dir);
      if (!master.startsWith("local") && value != null && !value.isBlank()) {
        classPath += ":" + value;
      }
    }
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.add("--master");
    cmd.add(master);
    conf.forEach(
        (k, v) -> {
          cmd.add("--conf");
          cmd.add(k + "=" + v);
        });
    cmd.add("--class");
    cmd.add(mainClass);
    cmd.add(install.applicationJar().toString());
    cmd.addAll(jobArgs);
    return new SparkRun(List.copyOf(cmd), install.sparkHome(), log, echo);
  }

  /** This run started through {@code launcher} (e.g. {@code ip netns exec <namespace>}). */
  public SparkRun via(List<String> launcher) {
    List<String> prefixed = new ArrayList<>(launcher);
    prefixed.addAll(command);
    return new SparkRun(List.copyOf(prefixed), sparkHome, log, echo);
  }

  /**
   * Runs to the end or until {@code timeout} (null: no limit). A run that overstays is not killed
   * blind: its threads are dumped beside the log first ({@code <log>.threads}), and those of
   * Spark's tasks and of Sluice are printed here, so that a hang is diagnosable from this process's
   * output alone.
   *
   * @return the exit code, or {@link #TIMED_OUT}
   */
  public int run(Map<String, String> env, Duration timeout)
      throws IOException, InterruptedException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    // Spark finds its own jars through SPARK_HOME where it ships them (YARN's containers).
    pb.environment().put("SPARK_HOME", sparkHome.toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    Thread stopper = new Thread(p::destroyForcibly);
    Runtime.getRuntime().addShutdownHook(stopper);
    try (Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      out.write(String.join(" ", command) + "\n\n");
      out.flush();
      Thread copier = new Thread(() -> copyOutput(p, out), "spark-run-output");
      copier.start();
      if (timeout == null) {
        p.waitFor();
      } else if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        String dump = ThreadDump.of(p.pid());
        // Beside the log, not in it: the log's last lines stay what the run printed last.
        Path threads = log.resolveSibling(log.getFileName() + ".threads");
        Files.writeString(threads, dump, StandardCharsets.UTF_8);
        System.out.println(
            "  the run did not end within " + timeout + "; its threads (all in " + threads + "):");
        System.out.println(ThreadDump.interesting(dump));
        p.destroyForcibly();
        copier.join();
        return TIMED_OUT;
      }
      copier.join();
      return p.exitValue();
    } finally {
      p.destroyForcibly();
      Runtime.getRuntime().removeShutdownHook(stopper);
    }
  }

  /** The exit code {@link #run(Map, Duration)} returns for a run that overstayed its time. */
  public static final int TIMED_OUT = 124;

  private void copyOutput(Process p, Writer out) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        out.write(line);
        out.write('\n');
        if (echo.test(line)) {
          System.out.println("  " + line);
        }
      }
    } catch (IOException e) {
      System.out.println("  reading the output of the run: " + e);
    }
  }
}
