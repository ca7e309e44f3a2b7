package io.sluice.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A job of the examples jar submitted with {@code SparkSubmit} in its own JVM, on one Spark line's
 * installation with only that line's shaded client added: bin/sluice-spark-env.sh names the home,
 * the jars and the JVM options Spark needs, as for the README's main command.
 */
final class SubmittedJob {
  private SubmittedJob() {}

  /** The settings that send a job's shuffles through {@code cluster}, never falling back. */
  static List<String> throughSluice(MiniCluster cluster) {
    return List.of(
        "--conf", "spark.shuffle.manager=" + SparkSessions.MANAGER,
        "--conf", "spark.sluice.coordinators=" + cluster.coordinatorAddress(),
        "--conf", "spark.sluice.fallback.enabled=false");
  }

  /**
   * Runs {@code jobClass} to completion on Spark {@code line} (3.5 or 4).
   *
   * @param master e.g. {@code local[2,4]}, which allows task retries
   * @param sparkArgs further SparkSubmit arguments, e.g. {@code --conf k=v}
   */
  static Daemons.Result run(Path logDir, String line, String master, String jobClass,
      List<String> sparkArgs) throws Exception {
    String script = ". bin/sluice-spark-env.sh && exec \"$JAVA\" -Xmx768m "
        + "\"${SPARK_JAVA_OPENS[@]}\" -Dlog4j2.configurationFile=conf/spark-log4j2.properties "
        + "-cp \"$SPARK_HOME/jars/*:$(sluice_shaded_jar)\" org.apache.spark.deploy.SparkSubmit "
        + "--master \"$1\" --conf spark.ui.enabled=false --conf spark.driver.host=127.0.0.1 "
        + "--conf spark.shuffle.push.enabled=false \"${@:3}\" --class \"$2\" "
        + "\"$(sluice_examples_jar)\"";
    List<String> command = new ArrayList<>(List.of("bash", "-c", script, "submit", master,
        jobClass));
    command.addAll(sparkArgs);
    return Daemons.run(logDir, Map.of("SLUICE_SPARK", line), command.toArray(String[]::new));
  }
}
