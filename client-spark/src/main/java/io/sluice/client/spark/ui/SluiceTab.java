package io.sluice.client.spark.ui;

import org.apache.spark.SparkContext;
import org.apache.spark.ui.SparkUI;
import org.apache.spark.ui.SparkUITab;
import org.apache.spark.util.kvstore.KVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The "Sluice" tab of Spark's UI, at {@code /sluice/}: each shuffle's servers and copies, bytes
 * pushed and read, retries, relocations, replica reads, fetch failures, map stage re-runs, and
 * fallbacks with their reasons. Attached by the driver with the application's first shuffle, and by
 * the history server to applications whose event log holds Sluice's events ({@link
 * SluiceHistoryServerPlugin}).
 */
public final class SluiceTab extends SparkUITab {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceTab.class);

  private SluiceTab(SparkUI ui) {
    super(ui, "sluice");
    attachPage(new SluiceShufflesPage(this, ui.store().store()));
  }

  /**
   * Starts keeping the summaries of the application's shuffles and shows them in its UI, if it has
   * one. Call once per application, before its first Sluice event is posted.
   */
  public static void attachLive(SparkContext sc) {
    if (sc.ui().isEmpty()) {
      return;
    }
    sc.listenerBus().addToStatusQueue(new ShuffleSummaryListener(sc.statusStore().store()));
    sc.ui().get().attachTab(new SluiceTab(sc.ui().get()));
  }

  /** Shows the tab in a replayed application's UI when Sluice's events were in its log. */
  static void attachReplayed(SparkUI ui) {
    KVStore store = ui.store().store();
    try {
      if (store.count(ShuffleSummary.class) > 0) {
        ui.attachTab(new SluiceTab(ui));
      }
    } catch (Exception e) {
      LOG.warn("Cannot show the Sluice tab of {}: {}", ui.appId(), e.toString());
    }
  }
}
