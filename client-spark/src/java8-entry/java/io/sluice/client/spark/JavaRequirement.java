package io.sluice.client.spark;

/**
 * The error a JVM older than Java 17 gets from Sluice's Spark client, instead of an {@code
 * UnsupportedClassVersionError} from deep inside Spark's start-up.
 *
 * <p>The shaded client jar is a multi-release jar: Java 17 and later load the client's entry points
 * from {@code META-INF/versions/17}; older JVMs load the copies compiled for Java 8 from this
 * source root, whose constructors throw this. Compiled with {@code --release 8}: nothing here may
 * use a newer API.
 */
final class JavaRequirement {
  private JavaRequirement() {}

  static IllegalStateException unmet(String entryPoint) {
    return new IllegalStateException(
        "Sluice's Spark client ("
            + entryPoint
            + ") needs Java 17 or "
            + "later on the driver and every executor, and this JVM is Java "
            + System.getProperty("java.version")
            + " ("
            + System.getProperty("java.home")
            + "). "
            + "Run Spark on Java 17 (JAVA_HOME; spark.executorEnv.JAVA_HOME for executors), or remove "
            + "spark.shuffle.manager=io.sluice.client.spark.SluiceShuffleManager to use Spark's "
            + "built-in shuffle.");
  }
}
