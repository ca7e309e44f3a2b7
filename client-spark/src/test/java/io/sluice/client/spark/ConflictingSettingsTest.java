package io.sluice.client.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** Runs on every Spark line; what dynamic allocation needs differs before Spark 3.5. */
class ConflictingSettingsTest {
  @Test
  void aPlainConfigurationHasNoConflict() {
    assertEquals(List.of(), ConflictingSettings.resolve(new SparkConf(false)));
  }

  @Test
  void dynamicAllocationWithoutShuffleTrackingIsNoConflictWhereStorageIsDeclaredReliable() {
    assumeTrue(ReliableStorage.DECLARED, "Spark 3.5 and later");
    SparkConf conf =
        new SparkConf(false)
            .set(ConflictingSettings.DYNAMIC_ALLOCATION, "true")
            .set(ConflictingSettings.SHUFFLE_TRACKING, "false");
    assertEquals(List.of(), ConflictingSettings.resolve(conf));
  }

  @Test
  void spark35sDefaultShuffleTrackingIsNamedWithDynamicAllocation() {
    assumeTrue(ReliableStorage.DECLARED, "Spark 3.5 and later");
    SparkConf conf = new SparkConf(false).set(ConflictingSettings.DYNAMIC_ALLOCATION, "true");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(
        warnings
            .get(0)
            .startsWith("spark.dynamicAllocation.shuffleTracking.enabled=true (Spark's default)"),
        warnings.get(0));
  }

  @Test
  void dynamicAllocationWithoutShuffleTrackingIsNamedBeforeSpark35() {
    assumeFalse(ReliableStorage.DECLARED, "Spark 3.3 and 3.4");
    SparkConf conf =
        new SparkConf(false)
            .set(ConflictingSettings.DYNAMIC_ALLOCATION, "true")
            .set(ConflictingSettings.SHUFFLE_TRACKING, "false");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(
        warnings.get(0).contains("needs spark.dynamicAllocation.shuffleTracking.enabled=true"),
        warnings.get(0));
    conf.set(ConflictingSettings.SHUFFLE_TRACKING, "true");
    assertEquals(List.of(), ConflictingSettings.resolve(conf));
    conf.set(ConflictingSettings.SHUFFLE_TRACKING, "false")
        .set(ConflictingSettings.SHUFFLE_SERVICE, "true");
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
    SparkConf conf =
        new SparkConf(false).set(ConflictingSettings.UNREGISTER_HOST_ON_FETCH_FAILURE, "true");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size());
    assertTrue(
        warnings.get(0).startsWith("spark.files.fetchFailure.unRegisterOutputOnHost=true"),
        warnings.get(0));
    assertEquals("false", conf.get(ConflictingSettings.UNREGISTER_HOST_ON_FETCH_FAILURE));
  }

  @Test
  void shuffleTrackingAndTheShuffleServiceAreNamedAndLeftAsSet() {
    assumeTrue(ReliableStorage.DECLARED, "Spark 3.5 and later, where Sluice needs neither");
    SparkConf conf =
        new SparkConf(false)
            .set(ConflictingSettings.DYNAMIC_ALLOCATION, "true")
            .set(ConflictingSettings.SHUFFLE_TRACKING, "true");
    List<String> warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("spark.dynamicAllocation.shuffleTracking.enabled"));
    assertEquals("true", conf.get(ConflictingSettings.SHUFFLE_TRACKING));

    // Spark tracks no shuffles where the external shuffle service serves them.
    conf.set(ConflictingSettings.SHUFFLE_SERVICE, "true");
    warnings = ConflictingSettings.resolve(conf);
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("spark.shuffle.service.enabled"));
    assertEquals("true", conf.get(ConflictingSettings.SHUFFLE_SERVICE));
  }
}
