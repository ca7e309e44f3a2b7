package io.sluice.client.spark;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import org.apache.spark.SparkConf;

/**
 * Fails the driver at once when the client jar reached it only through {@code --jars} ({@code
 * spark.jars}) on a Spark 3 line with executors in JVMs of their own. Spark 3 executors create the
 * shuffle manager before they fetch {@code spark.jars}, so none of them could start, and the
 * application would wait for executors for ever. (Spark 4 creates it after.) A jar that the
 * driver's own class path holds (loaded by the JVM's application class loader, not by the loader
 * Spark adds {@code --jars} to) is taken as placed as docs/client.md says, on every node.
 */
final class ClientJarPlacement {
  static final String EXECUTOR_CLASS_PATH = "spark.executor.extraClassPath";

  private ClientJarPlacement() {}

  /** Checks where this JVM loaded the client from. */
  static void check(SparkConf conf) {
    boolean onJvmClassPath =
        ClientJarPlacement.class.getClassLoader() == ClassLoader.getSystemClassLoader();
    check(conf, clientJar(), onJvmClassPath, org.apache.spark.package$.MODULE$.SPARK_VERSION());
  }

  /**
   * @param clientJar the jar the client's classes came from, or null when they came from a
   *     directory (a build tree's classes: nothing to check)
   * @param onJvmClassPath whether the JVM's application class loader loaded the client
   * @throws IllegalStateException when no executor could load the shuffle manager
   */
  static void check(SparkConf conf, Path clientJar, boolean onJvmClassPath, String sparkVersion) {
    String master = conf.get("spark.master", "local");
    boolean executorsInDriver = master.equals("local") || master.startsWith("local[");
    if (clientJar == null
        || onJvmClassPath
        || executorsInDriver
        || !sparkVersion.startsWith("3.")) {
      return;
    }
    String name = clientJar.getFileName().toString();
    if (conf.get(EXECUTOR_CLASS_PATH, "").contains(name)) {
      return;
    }
    throw new IllegalStateException(
        "Sluice's client jar "
            + name
            + " reached the driver only "
            + "through --jars (spark.jars), and Spark "
            + sparkVersion
            + " executors create the "
            + "shuffle manager before they fetch those jars, so none could start. Put the jar on "
            + EXECUTOR_CLASS_PATH
            + " and spark.driver.extraClassPath (the file at that path on "
            + "every node; on YARN, keep --jars and give the file's name "
            + name
            + ", which YARN "
            + "puts in each container's working directory), or into $SPARK_HOME/jars on every "
            + "node (docs/client.md).");
  }

  private static Path clientJar() {
    URL location = ClientJarPlacement.class.getProtectionDomain().getCodeSource().getLocation();
    try {
      Path path = Path.of(location.toURI());
      return path.toString().endsWith(".jar") ? path : null;
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null;
    }
  }
}
