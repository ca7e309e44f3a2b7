package io.sluice.benchmark;

import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** What a benchmark's Spark application waits for before it starts timing. */
public final class SparkExecutors {
  private SparkExecutors() {}

  /**
   * On a cluster whose size the settings fix ({@code spark.cores.max} cores in executors of {@code
   * spark.executor.cores}), waits (at most two minutes) until every executor registered, so that
   * the job's time is the shuffle's, not the executors' start. Returns at once otherwise (local
   * mode).
   */
  public static void awaitAll(SparkSession spark) throws InterruptedException {
    SparkConf conf = spark.sparkContext().getConf();
    if (!conf.contains("spark.cores.max") || !conf.contains("spark.executor.cores")) {
      return;
    }
    int expected = conf.getInt("spark.cores.max", 0) / conf.getInt("spark.executor.cores", 1);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    // The status tracker counts the driver among the executors.
    while (spark.sparkContext().statusTracker().getExecutorInfos().length - 1 < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            expected
                + " executors did not register within two "
                + "minutes: the job's time would include their start");
      }
      Thread.sleep(50);
    }
  }
}
