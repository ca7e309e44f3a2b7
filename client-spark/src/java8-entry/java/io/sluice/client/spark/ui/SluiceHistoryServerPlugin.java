package io.sluice.client.spark.ui;

import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.status.AppHistoryServerPlugin;
import org.apache.spark.status.ElementTrackingStore;
import org.apache.spark.ui.SparkUI;
import org.slf4j.LoggerFactory;
import scala.collection.Seq;
import scala.collection.immutable.List$;

/**
 * What a history server older than Java 17 finds as Sluice's plugin (its service file names this
 * class): it shows no Sluice tab and says why once, instead of failing to load (which would stop
 * the history server). Java 17 and later load the real plugin from the shaded jar's {@code
 * META-INF/versions/17}. Compiled with {@code --release 8}.
 */
public final class SluiceHistoryServerPlugin implements AppHistoryServerPlugin {
  public SluiceHistoryServerPlugin() {
    LoggerFactory.getLogger(SluiceHistoryServerPlugin.class)
        .warn(
            "The Sluice tab needs Java 17 "
                + "or later, and this history server runs Java {} ({}): applications are shown without "
                + "it.",
            System.getProperty("java.version"),
            System.getProperty("java.home"));
  }

  @Override
  public Seq<SparkListener> createListeners(SparkConf conf, ElementTrackingStore store) {
    return List$.MODULE$.empty();
  }

  @Override
  public void setupUI(SparkUI ui) {}
}
