package io.sluice.client.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.shuffle.api.ShuffleDataIO;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells Spark that shuffle output is stored reliably, away from executors ({@code
 * spark.shuffle.sort.io.plugin.class=io.sluice.client.spark.SluiceShuffleDataIO}): losing an
 * executor then re-runs none of its map tasks, and dynamic allocation may release executors with
 * neither an external shuffle service nor shuffle tracking. Everything else is Spark's local disk
 * implementation, which shuffles that fall back to the sort shuffle still use (their output is on
 * executors: Spark recovers a lost one through a fetch failure instead). Spark 3.3 and 3.4 have no
 * such declaration ({@link ReliableStorage}).
 */
public final class SluiceShuffleDataIO implements ShuffleDataIO {
  static final String PLUGIN_KEY = "spark.shuffle.sort.io.plugin.class";
  private static final Logger LOG = LoggerFactory.getLogger(SluiceShuffleDataIO.class);

  private final LocalDiskShuffleDataIO local;

  public SluiceShuffleDataIO(SparkConf conf) {
    this.local = new LocalDiskShuffleDataIO(conf);
  }

  @Override
  public ShuffleExecutorComponents executor() {
    return local.executor();
  }

  @Override
  public ShuffleDriverComponents driver() {
    return ReliableStorage.driverComponents();
  }

  /**
   * Sets the plugin on the driver's configuration when the user set none. Spark 3.5 creates the
   * shuffle manager before it loads the plugin from the same configuration, so this takes effect;
   * docs/client.md still lists the line, for Spark lines that load the plugin first. On Spark 3.3
   * and 3.4, where storage cannot be declared reliable, nothing is set.
   */
  static void installIfMissing(SparkConf conf) {
    if (!ReliableStorage.DECLARED) {
      return;
    }
    String configured = conf.get(PLUGIN_KEY, null);
    if (configured == null) {
      conf.set(PLUGIN_KEY, SluiceShuffleDataIO.class.getName());
    } else if (!configured.equals(SluiceShuffleDataIO.class.getName())) {
      LOG.warn(
          "{} is {}: Spark will re-run the map tasks of lost executors although their "
              + "output is on Sluice servers; set it to {}",
          PLUGIN_KEY,
          configured,
          SluiceShuffleDataIO.class.getName());
    }
  }
}
