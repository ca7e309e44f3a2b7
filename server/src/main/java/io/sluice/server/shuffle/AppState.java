package io.sluice.server.shuffle;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/** A registered application: its user, its shuffles and when it last showed signs of life. */
public final class AppState {
  private final String appId;
  private final String user;
  private final ConcurrentHashMap<Integer, ShuffleState> shuffles = new ConcurrentHashMap<>();
  private volatile long lastHeartbeatNanos;

  AppState(String appId, String user, long nowNanos) {
    this.appId = appId;
    this.user = user;
    this.lastHeartbeatNanos = nowNanos;
  }

  public String appId() {
    return appId;
  }

  public String user() {
    return user;
  }

  void heartbeat(long nowNanos) {
    lastHeartbeatNanos = nowNanos;
  }

  long lastHeartbeatNanos() {
    return lastHeartbeatNanos;
  }

  ConcurrentHashMap<Integer, ShuffleState> shuffleMap() {
    return shuffles;
  }

  public ShuffleState shuffle(int shuffleId) {
    return shuffles.get(shuffleId);
  }

  public Collection<ShuffleState> shuffles() {
    return shuffles.values();
  }
}
