package io.sluice.client.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

class ConflictingSettingsTest {
  @Test
  void aPlainConfigurationHasNoConflict() {
    SparkConf conf = new SparkConf(false).set("spark.dynamicAllocation.enabled", "true");
    assertEquals(List.of(), ConflictingSettings.resolve(conf));
  }

  @Test
  void pushBasedShuffleIsTurnedOffWithAWarningNamingTheKey() {
    SparkConf conf = new SparkConf(false).set(ConflictingSettings.PUSH_BASED_SHUFFLE, "true");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size());
    assertTrue(warnings.get(0).startsWith("spark.shuffle.push.enabled=true"), warnings.get(0));
    assertEquals("false", conf.get(ConflictingSettings.PUSH_BASED_SHUFFLE));
  }

  @Test
  void unregisteringAHostsOutputsOnAFetchFailureIsTurnedOff() {
    SparkConf conf = new SparkConf(false)
        .set(ConflictingSettings.UNREGISTER_HOST_ON_FETCH_FAILURE, "true");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size());
    assertTrue(warnings.get(0).startsWith("spark.files.fetchFailure.unRegisterOutputOnHost=true"),
        warnings.get(0));
    assertEquals("false", conf.get(ConflictingSettings.UNREGISTER_HOST_ON_FETCH_FAILURE));
  }

  @Test
  void shuffleTrackingAndTheShuffleServiceAreNamedAndLeftAsSet() {
    SparkConf conf = new SparkConf(false)
        .set(ConflictingSettings.DYNAMIC_ALLOCATION, "true")
        .set(ConflictingSettings.SHUFFLE_TRACKING, "true")
        .set(ConflictingSettings.SHUFFLE_SERVICE, "true");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(2, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("spark.dynamicAllocation.shuffleTracking.enabled"));
    assertTrue(warnings.get(1).contains("spark.shuffle.service.enabled"));
    assertEquals("true", conf.get(ConflictingSettings.SHUFFLE_TRACKING));
  }
}
