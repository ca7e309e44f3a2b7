package io.sluice.coordinator.app;

import io.sluice.common.protocol.LogText;
import io.sluice.common.protocol.StatusCode;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.RequestRefusedException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The applications registered with this coordinator: who runs them, when they were last heard of,
 * and how many each user has, for {@code coordinator.max.apps.per.user}. An application that sends
 * no heartbeat for the expiry is forgotten and must register again (a client does so by itself when
 * a coordinator answers UNKNOWN_APPLICATION). Registrations churn slowly, so one lock suffices.
 */
public final class ApplicationRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(ApplicationRegistry.class);

  /** Shuffles remembered per application, for {@code /applications}: the latest ones. */
  static final int MAX_SHUFFLES_KEPT = 1000;

  private final Clock clock;
  private final long expiryMillis;
  private final int maxAppsPerUser;
  private final Map<String, App> apps = new HashMap<>();
  private final Map<String, Integer> appsPerUser = new HashMap<>();

  /**
   * @param maxAppsPerUser the most applications one user may have registered; 0 for no limit
   */
  public ApplicationRegistry(Clock clock, Duration expiry, int maxAppsPerUser) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.expiryMillis = expiry.toMillis();
    this.maxAppsPerUser = maxAppsPerUser;
    if (expiryMillis <= 0 || maxAppsPerUser < 0) {
      throw new IllegalArgumentException(
          "invalid application settings: expiry=" + expiry + ", maxAppsPerUser=" + maxAppsPerUser);
    }
  }

  /**
   * Registers an application, or refreshes it when it is registered already (registration is
   * idempotent, so a client may repeat it after a failover).
   *
   * @throws RequestRefusedException INVALID_REQUEST for an empty id or user, or an id registered by
   *     another user; REFUSED when the user is at the per-user limit
   */
  public synchronized void register(String appId, String user) {
    if (appId.isEmpty() || user.isEmpty()) {
      throw new RequestRefusedException(
          StatusCode.INVALID_REQUEST,
          "an application needs a non-empty id and user, got id '"
              + appId
              + "', user '"
              + user
              + "'");
    }
    long now = clock.millis();
    App existing = liveApp(appId, now);
    if (existing != null) {
      if (!existing.user.equals(user)) {
        throw new RequestRefusedException(
            StatusCode.INVALID_REQUEST,
            "application " + appId + " is registered by user " + existing.user + ", not " + user);
      }
      existing.lastSeenMillis = now;
      return;
    }
    int running = appsPerUser.getOrDefault(user, 0);
    if (maxAppsPerUser > 0 && running >= maxAppsPerUser) {
      throw new RequestRefusedException(
          StatusCode.REFUSED,
          "user "
              + user
              + " already has "
              + running
              + " applications registered, the most allowed ("
              + CoordinatorOptions.MAX_APPS_PER_USER.key()
              + " = "
              + maxAppsPerUser
              + ")");
    }
    apps.put(appId, new App(appId, user, now));
    appsPerUser.merge(user, 1, Integer::sum);
    LOG.info("Application {} of user {} registered", LogText.escape(appId), LogText.escape(user));
  }

  /**
   * Keeps an application alive.
   *
   * @throws RequestRefusedException UNKNOWN_APPLICATION when it is not registered (or expired)
   */
  public synchronized void heartbeat(String appId) {
    App app = liveApp(appId, clock.millis());
    if (app == null) {
      throw unknown(appId);
    }
    app.lastSeenMillis = clock.millis();
  }

  /** Forgets an application; returns false when it was not registered. */
  public synchronized boolean unregister(String appId) {
    App app = apps.remove(appId);
    if (app == null) {
      return false;
    }
    release(app);
    LOG.info(
        "Application {} of user {} unregistered", LogText.escape(appId), LogText.escape(app.user));
    return true;
  }

  /** Forgets the applications not heard of for the expiry; returns their ids. */
  public synchronized List<String> expire() {
    long now = clock.millis();
    List<String> expired = new ArrayList<>();
    for (Iterator<App> it = apps.values().iterator(); it.hasNext(); ) {
      App app = it.next();
      if (isExpired(app, now)) {
        it.remove();
        release(app);
        expired.add(app.id);
        LOG.info(
            "Application {} of user {} sent no heartbeat for {} ms ({}); forgotten",
            LogText.escape(app.id),
            LogText.escape(app.user),
            now - app.lastSeenMillis,
            CoordinatorOptions.APP_EXPIRY.key());
      }
    }
    return expired;
  }

  /**
   * Records an assignment for a shuffle of a live application (the first places the shuffle, later
   * ones relocate partitions of it). Each application keeps its latest {@value #MAX_SHUFFLES_KEPT}
   * shuffles.
   */
  public synchronized void shuffleAssigned(
      String appId, int shuffleId, int partitions, int copies, List<String> serverIds) {
    long now = clock.millis();
    App app = liveApp(appId, now);
    if (app == null) {
      return;
    }
    AssignedShuffle known = app.shuffles.get(shuffleId);
    if (known == null) {
      app.shuffles.put(
          shuffleId, new AssignedShuffle(shuffleId, partitions, copies, serverIds, 0, now, now));
      if (app.shuffles.size() > MAX_SHUFFLES_KEPT) {
        Iterator<Integer> oldest = app.shuffles.keySet().iterator();
        oldest.next();
        oldest.remove();
      }
      return;
    }
    Set<String> servers = new LinkedHashSet<>(known.serverIds());
    servers.addAll(serverIds);
    app.shuffles.put(
        shuffleId,
        new AssignedShuffle(
            shuffleId,
            known.partitions(),
            known.copies(),
            List.copyOf(servers),
            known.relocations() + 1,
            known.firstAssignedMillis(),
            now));
  }

  /** A registered application as {@code /applications} shows it. */
  public record Registered(
      String appId, String user, long lastSeenMillis, List<AssignedShuffle> shuffles) {}

  /** The live applications, by id, each with the shuffles this coordinator assigned it. */
  public synchronized List<Registered> applications() {
    long now = clock.millis();
    List<Registered> live = new ArrayList<>();
    for (App app : new TreeMap<>(apps).values()) {
      if (!isExpired(app, now)) {
        live.add(
            new Registered(
                app.id, app.user, app.lastSeenMillis, List.copyOf(app.shuffles.values())));
      }
    }
    return live;
  }

  public synchronized boolean isRegistered(String appId) {
    return liveApp(appId, clock.millis()) != null;
  }

  public synchronized int size() {
    return apps.size();
  }

  /** Registered applications per user, by user name. */
  public synchronized Map<String, Integer> countsByUser() {
    return new TreeMap<>(appsPerUser);
  }

  /** The application if registered and not expired; an expired one is removed on the way. */
  private App liveApp(String appId, long now) {
    App app = apps.get(appId);
    if (app != null && isExpired(app, now)) {
      apps.remove(appId);
      release(app);
      return null;
    }
    return app;
  }

  private boolean isExpired(App app, long now) {
    return now - app.lastSeenMillis >= expiryMillis;
  }

  private void release(App app) {
    appsPerUser.computeIfPresent(app.user, (user, n) -> n > 1 ? n - 1 : null);
  }

  private static RequestRefusedException unknown(String appId) {
    return new RequestRefusedException(
        StatusCode.UNKNOWN_APPLICATION,
        "application "
            + appId
            + " is not registered with this coordinator (never registered, or expired after "
            + CoordinatorOptions.APP_EXPIRY.key()
            + " without heartbeat); register it first");
  }

  private static final class App {
    final String id;
    final String user;
    long lastSeenMillis;

    /** By shuffle id, oldest first assigned first. */
    final Map<Integer, AssignedShuffle> shuffles = new LinkedHashMap<>();

    App(String id, String user, long lastSeenMillis) {
      this.id = id;
      this.user = user;
      this.lastSeenMillis = lastSeenMillis;
    }
  }
}
