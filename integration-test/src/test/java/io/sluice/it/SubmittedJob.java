package io.sluice.it;

import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.MiniCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job of the examples jar submitted with {@code SparkSubmit} in its own JVM, on one Spark line's
 * installation with only that line's shaded client added (to the driver's class path, and to the
 * executors' with {@code spark.executor.extraClassPath} when the master starts executor JVMs):
 * bin/sluice-spark-env.sh names the home, the jars and the JVM options Spark needs, as for the
 * README's main command.
 */
final class SubmittedJob {
  /**
   * Paranoid leak detection for the client's Netty (relocated in the shaded jar, so its property is
   * too), in the driver and the executors: a leaked buffer is logged with {@code LEAK:}.
   */
  private static final String LEAK_DETECTION =
      "io.sluice.shaded.io.netty.leakDetection.level=paranoid";

  private SubmittedJob() {}

  /**
   * Fails if the job's output reports a buffer the client leaked (the driver's output, with its
   * tasks' in local mode; executors of a {@code local-cluster} log to its work directory).
   */
  static void assertNoLeak(Daemons.Result result) {
    if (result.output().contains("LEAK:")) {
      throw new AssertionError("the client leaked a buffer:\n" + result.output());
    }
  }

  /** The settings that send a job's shuffles through {@code cluster}, never falling back. */
  static List<String> throughSluice(MiniCluster cluster) {
    return throughSluice(cluster.coordinatorAddress());
  }

  /** The settings that send a job's shuffles through these coordinators, never falling back. */
  static List<String> throughSluice(String coordinators) {
    return List.of(
        "--conf", "spark.shuffle.manager=" + SparkSessions.MANAGER,
        "--conf", "spark.sluice.coordinators=" + coordinators,
        "--conf", "spark.sluice.fallback.enabled=false");
  }

  /**
   * Runs {@code jobClass} to completion (at most 120 s) on Spark {@code line} (3.5, 4, 3.4 or 3.3).
   *
   * @param master e.g. {@code local[2,4]}, which allows task retries
   * @param sparkArgs further SparkSubmit arguments, e.g. {@code --conf k=v}
   */
  static Daemons.Result run(
      Path logDir, String line, String master, String jobClass, List<String> sparkArgs)
      throws Exception {
    return start(logDir, line, master, jobClass, sparkArgs, List.of())
        .await(Duration.ofSeconds(120));
  }

  /**
   * Starts {@code jobClass} on Spark {@code line} (3.5, 4, 3.4 or 3.3), for a test that acts while
   * it runs.
   *
   * @param sparkArgs further SparkSubmit arguments, e.g. {@code --conf k=v}
   * @param jobArgs the arguments of the job's {@code main}
   */
  static Daemons.Running start(
      Path logDir,
      String line,
      String master,
      String jobClass,
      List<String> sparkArgs,
      List<String> jobArgs)
      throws Exception {
    return start(logDir, Map.of(), line, master, jobClass, sparkArgs, jobArgs);
  }

  /** As {@link #start}, with more environment for SparkSubmit (e.g. {@code YARN_CONF_DIR}). */
  static Daemons.Running start(
      Path logDir,
      Map<String, String> env,
      String line,
      String master,
      String jobClass,
      List<String> sparkArgs,
      List<String> jobArgs)
      throws Exception {
    // $1 master, $2 job class, $3 how many SparkSubmit arguments follow; then the job's.
    String script =
        ". bin/sluice-spark-env.sh && exec \"$JAVA\" -Xmx768m "
            + "\"${SPARK_JAVA_OPENS[@]}\" -D"
            + LEAK_DETECTION
            + " "
            + "-Dlog4j2.configurationFile=conf/spark-log4j2.properties "
            // As Spark's launcher does, a YARN_CONF_DIR goes on the class path (yarn-site.xml).
            + "-cp \"$SPARK_HOME/jars/*:$(sluice_shaded_jar)${YARN_CONF_DIR:+:$YARN_CONF_DIR}\" "
            + "org.apache.spark.deploy.SparkSubmit "
            + "--master \"$1\" --conf spark.ui.enabled=false --conf spark.driver.host=127.0.0.1 "
            + "--conf spark.shuffle.push.enabled=false "
            + "--conf spark.executor.extraClassPath=\"$(sluice_shaded_jar)\" "
            + "--conf spark.executor.extraJavaOptions=-D"
            + LEAK_DETECTION
            + " \"${@:4:$3}\" "
            + "--class \"$2\" \"$(sluice_examples_jar)\" \"${@:$((4 + $3))}\"";
    List<String> command =
        new ArrayList<>(
            List.of(
                "bash",
                "-c",
                script,
                "submit",
                master,
                jobClass,
                String.valueOf(sparkArgs.size())));
    command.addAll(sparkArgs);
    command.addAll(jobArgs);
    Map<String, String> environment = new HashMap<>(env);
    environment.put("SLUICE_SPARK", line);
    return Daemons.inProject().start(environment, command.toArray(String[]::new));
  }
}
