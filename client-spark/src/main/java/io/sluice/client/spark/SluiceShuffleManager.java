package io.sluice.client.spark;

import io.sluice.client.spark.driver.SluiceDriver;
import io.sluice.client.spark.read.SluiceShuffleReader;
import io.sluice.client.spark.ui.SluiceTab;
import io.sluice.client.spark.write.SluiceShuffleWriter;
import java.io.IOException;
import java.net.InetAddress;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.shuffle.sort.SortShuffleManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark's entry point to Sluice: {@code
 * spark.shuffle.manager=io.sluice.client.spark.SluiceShuffleManager}.
 *
 * <p>It extends Spark's {@link SortShuffleManager} for two reasons: a shuffle the coordinator
 * cannot place falls back to the sort shuffle unchanged, and Spark SQL skips its per-row copy
 * before a shuffle only for sort shuffle managers (our writer serializes each row before taking the
 * next, so reused row objects are safe).
 */
public class SluiceShuffleManager extends SortShuffleManager {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceShuffleManager.class);

  private final SparkConf conf;
  private final boolean isDriver;
  private final SluiceClientContext client;
  private final FallenBackOutputs fallenBack = new FallenBackOutputs();
  private SluiceDriver driver;
  private boolean tabAttached;

  /** Called by Spark on the driver and on every executor. */
  public SluiceShuffleManager(SparkConf conf, boolean isDriver) {
    super(conf);
    if (isDriver) {
      ClientJarPlacement.check(conf);
    }
    this.conf = conf;
    this.isDriver = isDriver;
    this.client = SluiceClientContext.acquire(conf);
    if (isDriver) {
      SluiceShuffleDataIO.installIfMissing(conf);
      ConflictingSettings.resolve(conf).forEach(LOG::warn);
    }
  }

  @Override
  public <K, V, C> ShuffleHandle registerShuffle(
      int shuffleId, ShuffleDependency<K, V, C> dependency) {
    int numPartitions = dependency.partitioner().numPartitions();
    SluiceDriver d;
    ShuffleLocations locations;
    try {
      d = driver(dependency.rdd().context());
      locations = d.registerShuffle(shuffleId, numPartitions, dependency);
    } catch (IOException | RuntimeException e) {
      if (!client.conf().get(SluiceClientOptions.FALLBACK)) {
        throw new IllegalStateException(
            "Sluice cannot take shuffle "
                + shuffleId
                + " and "
                + SluiceClientOptions.FALLBACK.key()
                + " is false: "
                + e.getMessage(),
            e);
      }
      report(dependency, SluiceShuffleEvent.fellBack(shuffleId, numPartitions, e.getMessage()));
      fallenBack.watch(dependency.rdd().context());
      return super.registerShuffle(shuffleId, dependency);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while registering shuffle " + shuffleId, e);
    }
    // Registered with its servers: the shuffle is Sluice's from here on.
    ShuffleCounters counters = ShuffleCounters.register(dependency.rdd().context(), shuffleId);
    report(dependency, SluiceShuffleEvent.registered(shuffleId, locations, counters));
    return new SluiceShuffleHandle<>(
        shuffleId,
        dependency,
        conf.getAppId(),
        locations,
        d.endpointHost(),
        d.endpointPort(),
        d.auth(),
        counters);
  }

  /**
   * Logs what became of a shuffle, and posts it for listeners and the event log; the application's
   * first shuffle brings the Sluice tab into its UI.
   */
  private void report(ShuffleDependency<?, ?, ?> dependency, SluiceShuffleEvent event) {
    if (event.sluice()) {
      LOG.info(event.describe());
    } else {
      LOG.warn(event.describe());
    }
    SparkContext sc = dependency.rdd().context();
    synchronized (this) {
      if (!tabAttached) {
        tabAttached = true;
        SluiceTab.attachLive(sc);
      }
    }
    sc.listenerBus().post(event);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> ShuffleWriter<K, V> getWriter(
      ShuffleHandle handle, long mapId, TaskContext context, ShuffleWriteMetricsReporter metrics) {
    if (handle instanceof SluiceShuffleHandle<?, ?, ?> sluice) {
      return new SluiceShuffleWriter<>(
          (SluiceShuffleHandle<K, V, Object>) sluice,
          mapId,
          context,
          metrics,
          client,
          client.locator(sluice));
    }
    return super.getWriter(handle, mapId, context, metrics);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, C> ShuffleReader<K, C> getReader(
      ShuffleHandle handle,
      int startMapIndex,
      int endMapIndex,
      int startPartition,
      int endPartition,
      TaskContext context,
      ShuffleReadMetricsReporter metrics) {
    if (handle instanceof SluiceShuffleHandle<?, ?, ?> sluice) {
      return new SluiceShuffleReader<>(
          (SluiceShuffleHandle<K, ?, C>) sluice,
          startMapIndex,
          endMapIndex,
          startPartition,
          endPartition,
          context,
          metrics,
          client,
          client.locator(sluice));
    }
    return super.getReader(
        handle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics);
  }

  @Override
  public boolean unregisterShuffle(int shuffleId) {
    client.forget(shuffleId);
    synchronized (this) {
      if (driver != null) {
        driver.unregisterShuffle(shuffleId);
      }
    }
    return super.unregisterShuffle(shuffleId);
  }

  @Override
  public void stop() {
    synchronized (this) {
      if (driver != null) {
        driver.close();
        driver = null;
      }
    }
    SluiceClientContext.release();
    super.stop();
  }

  /** The driver's coordination, started with the first shuffle (the app id is known by then). */
  private synchronized SluiceDriver driver(SparkContext sc)
      throws IOException, InterruptedException {
    if (!isDriver) {
      throw new IllegalStateException("shuffles are registered on the driver");
    }
    if (driver == null) {
      String host =
          conf.get("spark.driver.host", InetAddress.getLoopbackAddress().getHostAddress());
      driver =
          new SluiceDriver(
              client,
              conf.getAppId(),
              System.getProperty("user.name", "unknown"),
              conf.get("spark.driver.bindAddress", host),
              host,
              sc.listenerBus()::post);
    }
    return driver;
  }
}
