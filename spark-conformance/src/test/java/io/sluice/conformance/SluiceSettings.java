package io.sluice.conformance;

import org.apache.spark.SparkConf;

/** What the conformance suites add to Spark's own settings: Sluice, and nothing else. */
final class SluiceSettings {
  static final String MANAGER = "io.sluice.client.spark.SluiceShuffleManager";

  private SluiceSettings() {}

  /**
   * Sluice as the shuffle manager, against the conformance cluster, with fallback to the built-in
   * shuffle off so that every shuffle goes through Sluice.
   */
  static SparkConf apply(SparkConf conf, String coordinators) {
    return conf.set("spark.shuffle.manager", MANAGER)
        .set("spark.sluice.coordinators", coordinators)
        .set("spark.sluice.fallback.enabled", "false");
  }
}
