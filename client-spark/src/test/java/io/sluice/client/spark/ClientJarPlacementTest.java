package io.sluice.client.spark;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

class ClientJarPlacementTest {
  private static final Path JAR = Path.of("/opt/sluice/sluice-client-spark-3.5_2.12-1-shaded.jar");

  @Test
  void aJarOnlyInSparkJarsFailsTheDriverOnSpark3WithExecutorJvms() {
    SparkConf conf = new SparkConf(false).set("spark.master", "spark://master:7077");
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> ClientJarPlacement.check(conf, JAR, false, "3.5.9"));
    assertTrue(e.getMessage().contains("only through --jars (spark.jars)"), e.getMessage());
    assertTrue(e.getMessage().contains("spark.executor.extraClassPath"), e.getMessage());
    conf.set("spark.master", "local-cluster[2,1,1024]");
    assertThrows(
        IllegalStateException.class, () -> ClientJarPlacement.check(conf, JAR, false, "3.3.4"));
  }

  @Test
  void aJarWhereExecutorsLoadItIsAccepted() {
    SparkConf conf = new SparkConf(false).set("spark.master", "spark://master:7077");
    // On the driver's class path: placed on every node as docs/client.md says.
    assertDoesNotThrow(() -> ClientJarPlacement.check(conf, JAR, true, "3.5.9"));
    conf.set(ClientJarPlacement.EXECUTOR_CLASS_PATH, JAR.toString());
    assertDoesNotThrow(() -> ClientJarPlacement.check(conf, JAR, false, "3.5.9"));
  }

  @Test
  void localModeSpark4AndClassDirectoriesAreNotChecked() {
    SparkConf conf = new SparkConf(false).set("spark.master", "local[4]");
    assertDoesNotThrow(() -> ClientJarPlacement.check(conf, JAR, false, "3.5.9"));
    conf.set("spark.master", "spark://master:7077");
    assertDoesNotThrow(() -> ClientJarPlacement.check(conf, JAR, false, "4.0.1"));
    assertDoesNotThrow(() -> ClientJarPlacement.check(conf, null, false, "3.5.9"));
  }
}
