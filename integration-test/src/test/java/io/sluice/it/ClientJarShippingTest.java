package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job given the client jar only with {@code --jars} on a Spark 3 line, with executors in JVMs of
 * their own: Spark 3 executors create the shuffle manager before they fetch {@code --jars}, so the
 * job used to wait for executors for ever. The driver now refuses to start at once, naming the
 * settings that place the jar where executors load it.
 */
class ClientJarShippingTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "Spark {0}")
  @ValueSource(strings = {"3.5", "3.3"})
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aJarGivenOnlyWithJarsFailsAtOnceNamingTheSettings(String line) throws Exception {
    String script =
        ". bin/sluice-spark-env.sh && exec \"$JAVA\" -Xmx512m "
            + "\"${SPARK_JAVA_OPENS[@]}\" -Dlog4j2.configurationFile=conf/spark-log4j2.properties "
            + "-cp \"$SPARK_HOME/jars/*\" org.apache.spark.deploy.SparkSubmit "
            + "--master 'local-cluster[1,1,1024]' --conf spark.ui.enabled=false "
            + "--conf spark.driver.host=127.0.0.1 --conf spark.executor.memory=512m "
            + "--conf spark.shuffle.manager="
            + SparkSessions.MANAGER
            + " "
            + "--conf spark.sluice.coordinators=127.0.0.1:1 --jars \"$(sluice_shaded_jar)\" "
            + "--class io.sluice.examples.ShuffleExample \"$(sluice_examples_jar)\" 2000 10";
    Daemons.Result result =
        Daemons.inProject()
            .start(Map.of("SLUICE_SPARK", line), "bash", "-c", script)
            .await(Duration.ofSeconds(120));
    assertTrue(result.exitCode() != 0, result.output());
    assertTrue(
        result
            .output()
            .contains(
                "reached the driver only through --jars (spark.jars), "
                    + "and Spark "
                    + line
                    + "."),
        result.output());
    assertTrue(result.output().contains("spark.executor.extraClassPath"), result.output());
  }
}
