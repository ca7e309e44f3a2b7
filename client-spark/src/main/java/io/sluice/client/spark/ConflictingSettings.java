package io.sluice.client.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;

/**
 * Spark settings that work against a remote shuffle service, found when the driver's shuffle
 * manager starts: each gets one warning naming the key, and push-based shuffle, which would make
 * every shuffle map stage wait for merges that never come, is turned off.
 */
final class ConflictingSettings {
  static final String PUSH_BASED_SHUFFLE = "spark.shuffle.push.enabled";
  static final String DYNAMIC_ALLOCATION = "spark.dynamicAllocation.enabled";
  static final String SHUFFLE_TRACKING = "spark.dynamicAllocation.shuffleTracking.enabled";
  static final String SHUFFLE_SERVICE = "spark.shuffle.service.enabled";

  private ConflictingSettings() {}

  /** Resolves what can be resolved in {@code conf} and returns one warning per conflict found. */
  static List<String> resolve(SparkConf conf) {
    List<String> warnings = new ArrayList<>();
    if (conf.getBoolean(PUSH_BASED_SHUFFLE, false)) {
      conf.set(PUSH_BASED_SHUFFLE, "false");
      warnings.add(PUSH_BASED_SHUFFLE + "=true asks Spark's external shuffle services to merge "
          + "map output that Sluice holds instead; Sluice turned it off for this application. "
          + "Remove the setting where Sluice is the shuffle manager.");
    }
    if (conf.getBoolean(DYNAMIC_ALLOCATION, false) && conf.getBoolean(SHUFFLE_TRACKING, false)) {
      warnings.add(SHUFFLE_TRACKING + "=true keeps executors alive while shuffles they wrote "
          + "live, but with Sluice no shuffle output is on an executor: set it to false so that "
          + "dynamic allocation releases idle executors (no external shuffle service is needed).");
    }
    if (conf.getBoolean(SHUFFLE_SERVICE, false)) {
      warnings.add(SHUFFLE_SERVICE + "=true: Spark's external shuffle service serves no shuffle "
          + "data with Sluice (it still serves cached RDD blocks on disk, if you use that); "
          + "dynamic allocation does not need it.");
    }
    return warnings;
  }
}
