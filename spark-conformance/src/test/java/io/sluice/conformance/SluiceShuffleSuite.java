package io.sluice.conformance;

import org.apache.spark.ShuffleSuite;
import org.scalatest.Args;
import org.scalatest.Status;

/**
 * Spark's own {@code ShuffleSuite} (from its spark-core test jar) through Sluice, as Spark's {@code
 * SortShuffleSuite} runs it through the built-in shuffle: the suite's own configuration with Sluice
 * as the shuffle manager. Its {@code local-cluster} tests start executors from the Spark home the
 * examples module assembles, with the test class path ({@code spark.testing}).
 */
public class SluiceShuffleSuite extends ShuffleSuite {
  private static final String SUITE = "ShuffleSuite";

  @Override
  public void beforeAll() {
    super.beforeAll();
    SluiceSettings.apply(conf(), ConformanceCluster.beginSuite(SUITE, testNames()));
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
  public scala.collection.immutable.Map<String, scala.collection.immutable.Set<String>> tags() {
    return InapplicableTests.withIgnored(SUITE, super.tags());
  }

  @Override
  public Status runTest(String testName, Args args) {
    return TestWatchdog.guard(SUITE, testName, () -> super.runTest(testName, args));
  }
}
