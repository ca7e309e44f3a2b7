package io.sluice.conformance;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.execution.adaptive.AdaptiveQueryExecSuite;
import org.scalatest.Args;
import org.scalatest.Status;

/**
 * Spark's own {@code AdaptiveQueryExecSuite} (from its spark-sql test jar) through Sluice: the
 * suite's shared session ({@code local[2]}) with every setting of its own, and Sluice as the
 * shuffle manager.
 */
public class SluiceAdaptiveQueryExecSuite extends AdaptiveQueryExecSuite {
  private static final String SUITE = "AdaptiveQueryExecSuite";
  private String coordinators;

  @Override
  public void beforeAll() {
    // The session starts in super.beforeAll() and reads sparkConf() then.
    coordinators = ConformanceCluster.beginSuite(SUITE, testNames());
    super.beforeAll();
  }

  @Override
  public void afterAll() {
    try {
      super.afterAll();
    } finally {
      ConformanceCluster.endSuite(SUITE);
    }
  }

  @Override
  public SparkConf sparkConf() {
    return SluiceSettings.apply(super.sparkConf(), coordinators);
  }

  @Override
  public scala.collection.immutable.Map<String, scala.collection.immutable.Set<String>> tags() {
    return InapplicableTests.withIgnored(SUITE, super.tags());
  }

  @Override
  public Status runTest(String testName, Args args) {
    return TestWatchdog.guard(SUITE, testName, () -> super.runTest(testName, args));
  }
}
