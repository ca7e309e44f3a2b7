package io.sluice.client.spark;

import org.apache.spark.SparkConf;

/**
 * What a JVM older than Java 17 finds as Sluice's shuffle I/O plugin: it refuses to start with
 * {@link JavaRequirement}'s message. Java 17 and later load the real plugin from the shaded jar's
 * {@code META-INF/versions/17}.
 */
public final class SluiceShuffleDataIO {
  /** The constructor Spark calls. */
  public SluiceShuffleDataIO(SparkConf conf) {
    throw JavaRequirement.unmet(SluiceShuffleDataIO.class.getName());
  }
}
