package io.sluice.client.spark;

import org.apache.spark.SparkConf;

/**
 * What a JVM older than Java 17 finds as Sluice's shuffle manager: it refuses to start with {@link
 * JavaRequirement}'s message. Java 17 and later load the real manager from the shaded jar's {@code
 * META-INF/versions/17}.
 */
public final class SluiceShuffleManager {
  /** The constructor Spark calls, on the driver and on every executor. */
  public SluiceShuffleManager(SparkConf conf, boolean isDriver) {
    throw JavaRequirement.unmet(SluiceShuffleManager.class.getName());
  }
}
