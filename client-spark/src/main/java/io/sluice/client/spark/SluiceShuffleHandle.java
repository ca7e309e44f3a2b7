package io.sluice.client.spark;

import org.apache.spark.ShuffleDependency;
import org.apache.spark.shuffle.BaseShuffleHandle;

/** A shuffle that runs through Sluice: the dependency plus where its partitions live. */
public final class SluiceShuffleHandle<K, V, C> extends BaseShuffleHandle<K, V, C> {
  private static final long serialVersionUID = 1L;

  private final String appId;
  private final ShuffleAssignment assignment;

  SluiceShuffleHandle(int shuffleId, ShuffleDependency<K, V, C> dependency, String appId,
      ShuffleAssignment assignment) {
    super(shuffleId, dependency);
    this.appId = appId;
    this.assignment = assignment;
  }

  public String appId() {
    return appId;
  }

  public ShuffleAssignment assignment() {
    return assignment;
  }
}
