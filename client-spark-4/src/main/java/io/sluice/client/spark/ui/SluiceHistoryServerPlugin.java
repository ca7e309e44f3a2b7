package io.sluice.client.spark.ui;

import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.status.AppHistoryServerPlugin;
import org.apache.spark.status.ElementTrackingStore;
import org.apache.spark.ui.SparkUI;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Sluice tab in Spark's history server, found through {@code META-INF/services} when the client
 * jar is on the history server's class path: replays each application's Sluice events into its
 * store and shows the tab for applications that used Sluice. Spark 4 (Scala 2.13) signature.
 */
public final class SluiceHistoryServerPlugin implements AppHistoryServerPlugin {
  @Override
  public Seq<SparkListener> createListeners(SparkConf conf, ElementTrackingStore store) {
    return CollectionConverters.asScala(List.<SparkListener>of(new ShuffleSummaryListener(store)))
        .toList();
  }

  @Override
  public void setupUI(SparkUI ui) {
    SluiceTab.attachReplayed(ui);
  }
}
