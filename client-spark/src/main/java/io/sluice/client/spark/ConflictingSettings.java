package io.sluice.client.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.internal.config.package$;

/**
 * Spark settings that work against a remote shuffle service, found when the driver's shuffle
 * manager starts: each gets one warning naming the key, and push-based shuffle, which would make
 * every shuffle map stage wait for merges that never come, is turned off, as is unregistering a
 * host's outputs on a fetch failure, which would leave a lost Sluice partition's map outputs
 * registered (see {@link MapOutputLocation}).
 */
final class ConflictingSettings {
  static final String PUSH_BASED_SHUFFLE = "spark.shuffle.push.enabled";
  static final String DYNAMIC_ALLOCATION = "spark.dynamicAllocation.enabled";
  static final String SHUFFLE_TRACKING = "spark.dynamicAllocation.shuffleTracking.enabled";
  static final String SHUFFLE_SERVICE = "spark.shuffle.service.enabled";
  static final String UNREGISTER_HOST_ON_FETCH_FAILURE =
      "spark.files.fetchFailure.unRegisterOutputOnHost";

  private ConflictingSettings() {}

  /** Resolves what can be resolved in {@code conf} and returns one warning per conflict found. */
  static List<String> resolve(SparkConf conf) {
    List<String> warnings = new ArrayList<>();
    if (conf.getBoolean(PUSH_BASED_SHUFFLE, false)) {
      conf.set(PUSH_BASED_SHUFFLE, "false");
      warnings.add(
          PUSH_BASED_SHUFFLE
              + "=true asks Spark's external shuffle services to merge "
              + "map output that Sluice holds instead; Sluice turned it off for this application. "
              + "Remove the setting where Sluice is the shuffle manager.");
    }
    if (conf.getBoolean(UNREGISTER_HOST_ON_FETCH_FAILURE, false)) {
      // Spark would then remove the outputs on the host a FetchFailedException names instead of
      // those of its executor, and a Sluice fetch failure names its shuffle, not a host.
      conf.set(UNREGISTER_HOST_ON_FETCH_FAILURE, "false");
      warnings.add(
          UNREGISTER_HOST_ON_FETCH_FAILURE
              + "=true would keep a lost Sluice "
              + "partition's map outputs registered, so that its stage could never recover; Sluice "
              + "turned it off for this application. Remove the setting where Sluice is the shuffle "
              + "manager.");
    }
    boolean dynamicAllocation = conf.getBoolean(DYNAMIC_ALLOCATION, false);
    boolean shuffleService = conf.getBoolean(SHUFFLE_SERVICE, false);
    boolean shuffleTracking = conf.getBoolean(SHUFFLE_TRACKING, shuffleTrackingByDefault());
    if (!ReliableStorage.DECLARED) {
      // Spark 3.3 and 3.4 then refuse to start, naming the external shuffle service only.
      if (dynamicAllocation && !shuffleTracking && !shuffleService) {
        warnings.add(
            DYNAMIC_ALLOCATION
                + "=true needs "
                + SHUFFLE_TRACKING
                + "=true with Sluice "
                + "on Spark 3.3 and 3.4, which cannot be told that shuffle output is on Sluice's "
                + "servers (Spark 3.5 and later need neither it nor an external shuffle service).");
      }
    } else if (dynamicAllocation && shuffleTracking && !shuffleService) {
      warnings.add(
          SHUFFLE_TRACKING
              + "=true (Spark's default) keeps executors alive while "
              + "shuffles they wrote live, but with Sluice no shuffle output is on an executor: set "
              + "it to false so that dynamic allocation releases idle executors (no external shuffle "
              + "service is needed).");
    }
    if (shuffleService && ReliableStorage.DECLARED) {
      warnings.add(
          SHUFFLE_SERVICE
              + "=true: Spark's external shuffle service serves no shuffle "
              + "data with Sluice (it still serves cached RDD blocks on disk, if you use that); "
              + "dynamic allocation does not need it.");
    }
    return warnings;
  }

  /** Spark's own default for shuffle tracking, which differs between lines (3.3: false). */
  private static boolean shuffleTrackingByDefault() {
    return Boolean.parseBoolean(
        package$.MODULE$.DYN_ALLOCATION_SHUFFLE_TRACKING_ENABLED().defaultValueString());
  }
}
