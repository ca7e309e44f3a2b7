package io.sluice.client.spark.read;

import org.apache.spark.shuffle.ShuffleReadMetricsReporter;

/**
 * Reports time spent in remote requests to Spark's shuffle read metrics (this copy: Spark 3.3,
 * whose reporter has no such metric, so nothing is reported; later lines compile the copy in {@code
 * client-spark/src/spark-3.4-and-later/java}).
 */
final class RemoteRequestTime {
  private RemoteRequestTime() {}

  static void report(ShuffleReadMetricsReporter metrics, long millis) {}
}
