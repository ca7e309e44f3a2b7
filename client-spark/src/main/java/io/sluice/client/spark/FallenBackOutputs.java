package io.sluice.client.spark;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.MapOutputTrackerMaster;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Spark's registry of map outputs true for shuffles that fell back to the sort shuffle, whose
 * files live on the executors that wrote them.
 *
 * <p>{@link SluiceShuffleDataIO} declares shuffle storage reliable, so Spark keeps an executor's
 * map outputs registered when the executor goes ({@code DAGScheduler.handleExecutorLost} finds no
 * file lost), and dynamic allocation releases idle executors with neither an external shuffle
 * service nor shuffle tracking. Both are right for Sluice's output, which is on servers, and wrong
 * for a fallen-back shuffle: its readers would fetch from executors that are gone (waiting out
 * connection timeouts where the host went too) and recover only through a fetch failure. Once a
 * shuffle has fallen back, this listener does for each removed executor what Spark does where
 * storage is not reliable: it removes the outputs registered at that executor, so that the next
 * stage needing them runs the missing maps first. Sluice's own outputs are registered at synthetic
 * executors ({@link MapOutputLocation}), which are never removed. With an external shuffle service,
 * which serves a removed executor's files, nothing is removed; nor on Spark 3.3 and 3.4, where
 * storage is not declared reliable and Spark removes them itself.
 */
final class FallenBackOutputs extends SparkListener {
  private static final Logger LOG = LoggerFactory.getLogger(FallenBackOutputs.class);

  private final AtomicBoolean watching = new AtomicBoolean();

  /** Starts following {@code sc}'s executor removals, the first time a shuffle falls back. */
  void watch(SparkContext sc) {
    if (!ReliableStorage.DECLARED
        || sc.conf().getBoolean(ConflictingSettings.SHUFFLE_SERVICE, false)
        || !watching.compareAndSet(false, true)) {
      return;
    }
    sc.addSparkListener(this);
    if (sc.conf().getBoolean(ConflictingSettings.DYNAMIC_ALLOCATION, false)) {
      LOG.warn(
          "A shuffle fell back to Spark's sort shuffle while dynamic allocation runs without "
              + "{}: releasing an idle executor loses its part of that shuffle's output, which Spark "
              + "then computes again",
          ConflictingSettings.SHUFFLE_SERVICE);
    }
  }

  @Override
  public void onExecutorRemoved(SparkListenerExecutorRemoved removed) {
    SparkEnv env = SparkEnv.get();
    if (env != null && env.mapOutputTracker() instanceof MapOutputTrackerMaster outputs) {
      outputs.removeOutputsOnExecutor(removed.executorId());
      LOG.info(
          "Executor {} was removed: its sort shuffle output is no longer registered",
          removed.executorId());
    }
  }
}
