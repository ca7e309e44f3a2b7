package io.sluice.client.spark.ui;

import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.status.AppHistoryServerPlugin;
import org.apache.spark.status.ElementTrackingStore;
import org.apache.spark.ui.SparkUI;
import scala.collection.JavaConverters;
import scala.collection.Seq;

/**
 * The Sluice tab in Spark's history server, found through {@code META-INF/services} when the client
 * jar is on the history server's class path: replays each application's Sluice events into its
 * store and shows the tab for applications that used Sluice. Spark 3 (Scala 2.12) signature.
 */
public final class SluiceHistoryServerPlugin implements AppHistoryServerPlugin {
  @Override
  public Seq<SparkListener> createListeners(SparkConf conf, ElementTrackingStore store) {
    return JavaConverters.asScalaBuffer(List.<SparkListener>of(new ShuffleSummaryListener(store)))
        .toList();
  }

  @Override
  public void setupUI(SparkUI ui) {
    SluiceTab.attachReplayed(ui);
  }
}
