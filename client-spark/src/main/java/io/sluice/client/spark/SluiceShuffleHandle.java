package io.sluice.client.spark;

import org.apache.spark.ShuffleDependency;
import org.apache.spark.shuffle.BaseShuffleHandle;

/**
 * A shuffle that runs through Sluice: the dependency, its first locations, where the driver's
 * endpoint listens (for new locations and for every location a partition had), and the counters
 * tasks report to the driver.
 */
public final class SluiceShuffleHandle<K, V, C> extends BaseShuffleHandle<K, V, C> {
  private static final long serialVersionUID = 4L;

  private final String appId;
  private final ShuffleLocations locations;
  private final String driverHost;
  private final int driverPort;
  private final ApplicationAuth auth;
  private final ShuffleCounters counters;

  SluiceShuffleHandle(
      int shuffleId,
      ShuffleDependency<K, V, C> dependency,
      String appId,
      ShuffleLocations locations,
      String driverHost,
      int driverPort,
      ApplicationAuth auth,
      ShuffleCounters counters) {
    super(shuffleId, dependency);
    this.counters = counters;
    this.appId = appId;
    this.locations = locations;
    this.driverHost = driverHost;
    this.driverPort = driverPort;
    this.auth = auth;
  }

  public String appId() {
    return appId;
  }

  /** The locations the shuffle started with (epoch 0). */
  public ShuffleLocations locations() {
    return locations;
  }

  public String driverHost() {
    return driverHost;
  }

  public int driverPort() {
    return driverPort;
  }

  /** How executors authenticate for this application. */
  public ApplicationAuth auth() {
    return auth;
  }

  /** Where this task counts what its pushes and reads met (this task's copy). */
  public ShuffleCounters counters() {
    return counters;
  }
}
