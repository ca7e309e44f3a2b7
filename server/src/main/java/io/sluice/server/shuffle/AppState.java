package io.sluice.server.shuffle;

import io.sluice.common.auth.Secret;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A registered application: its user, its secret (when the server authenticates), its shuffles and
 * when it last showed signs of life.
 */
public final class AppState {
  private final String appId;
  private final String user;
  private final Secret secret;
  private final ConcurrentHashMap<Integer, ShuffleState> shuffles = new ConcurrentHashMap<>();
  private volatile long lastHeartbeatNanos;

  AppState(String appId, String user, Secret secret, long nowNanos) {
    this.appId = appId;
    this.user = user;
    this.secret = secret;
    this.lastHeartbeatNanos = nowNanos;
  }

  public String appId() {
    return appId;
  }

  public String user() {
    return user;
  }

  /** The secret its connections prove; null when the server does not authenticate. */
  public Secret secret() {
    return secret;
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
