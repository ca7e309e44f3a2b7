package io.sluice.client.core.push;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * How fast a JVM's pushes are acknowledged, by the servers they involve, to find a server that
 * takes blocks much more slowly than the others (a slow link, a failing disk, a server short of
 * memory that keeps answering NO_BUFFER, a frozen process before it is given up): writers then move
 * its partitions elsewhere ({@link MapOutputPusher}), as they do from a lost server, but without
 * sending again what it already took.
 *
 * <p>The pace of a set of servers (a primary and the replicas its pushes are forwarded to) is the
 * bytes acknowledged per second that pushes to it were outstanding: time with at least one push in
 * flight, however many, so that it measures the servers and the links, not how much the writers had
 * to send. Failed pushes count their time but no bytes. Figures decay by half every {@link
 * #HALF_LIFE}, so a server judged slow is tried again once the evidence is old.
 *
 * <p>A server is slow when a set of servers it belongs to was busy at least {@code minBusy} at a
 * pace below the fastest set's divided by {@code slowRatio}, and it belongs to no set found fast; a
 * set of two servers both of which are in no fast set names neither (with two copies, a push is
 * slow when either of its servers is). Shared by the JVM's writers, so that evidence gathered by
 * many small tasks adds up. Thread-safe; never calls out while locked.
 */
public final class PushPace {
  /** How fast old evidence fades. */
  static final Duration HALF_LIFE = Duration.ofSeconds(10);

  /** The default {@code slowRatio}: a server four times slower than the fastest is moved from. */
  public static final int DEFAULT_SLOW_RATIO = 4;

  static final Duration DEFAULT_MIN_BUSY = Duration.ofMillis(300);
  static final long DEFAULT_MIN_EVIDENCE_BYTES = 256L << 10;

  /** Finds no server slow. */
  public static final PushPace OFF = new PushPace(0);

  private final int slowRatio;
  private final long minBusyNanos;
  private final long minEvidenceBytes;
  private final LongSupplier nanoClock;
  private final Map<List<String>, Pace> paces = new HashMap<>();

  /**
   * @param slowRatio how many times slower than the fastest servers a server must be found to be
   *     slow; 0 finds none
   */
  public PushPace(int slowRatio) {
    this(slowRatio, DEFAULT_MIN_BUSY, DEFAULT_MIN_EVIDENCE_BYTES, System::nanoTime);
  }

  /**
   * @param minBusy how long pushes to a set of servers must have been outstanding before it may be
   *     found slow
   * @param minEvidenceBytes bytes a set of servers must have acknowledged before its pace counts
   */
  PushPace(int slowRatio, Duration minBusy, long minEvidenceBytes, LongSupplier nanoClock) {
    if (slowRatio < 0) {
      throw new IllegalArgumentException("slowRatio " + slowRatio + " < 0");
    }
    this.slowRatio = slowRatio;
    this.minBusyNanos = minBusy.toNanos();
    this.minEvidenceBytes = minEvidenceBytes;
    this.nanoClock = nanoClock;
  }

  /** Whether this finds slow servers at all. */
  public boolean enabled() {
    return slowRatio > 0;
  }

  /** A push to {@code servers} (sorted server ids) was sent. */
  public synchronized void started(List<String> servers) {
    if (!enabled()) {
      return;
    }
    long now = nanoClock.getAsLong();
    Pace pace = paces.computeIfAbsent(servers, s -> new Pace(now));
    pace.advance(now);
    pace.outstanding++;
  }

  /** A push to {@code servers} ended: acknowledged with {@code bytes}, or failed with 0. */
  public synchronized void ended(List<String> servers, long bytes) {
    Pace pace = paces.get(servers);
    if (pace == null) {
      return;
    }
    pace.advance(nanoClock.getAsLong());
    pace.outstanding--;
    pace.bytes += bytes;
  }

  /** The servers found slow now, each with the paces that make it so. */
  public synchronized List<Slow> slowServers() {
    if (!enabled() || paces.size() < 2) {
      return List.of();
    }
    long now = nanoClock.getAsLong();
    double fastest = 0;
    for (Pace pace : paces.values()) {
      pace.advance(now);
      if (pace.bytes >= minEvidenceBytes) {
        fastest = Math.max(fastest, pace.bytesPerSecond());
      }
    }
    paces.values().removeIf(Pace::forgotten);
    if (fastest == 0) {
      return List.of();
    }
    Set<String> fast = new HashSet<>();
    List<Map.Entry<List<String>, Pace>> slow = new ArrayList<>();
    for (Map.Entry<List<String>, Pace> e : paces.entrySet()) {
      Pace pace = e.getValue();
      if (pace.busyNanos >= minBusyNanos && pace.bytesPerSecond() * slowRatio < fastest) {
        slow.add(e);
      } else if (pace.bytes >= minEvidenceBytes) {
        fast.addAll(e.getKey());
      }
    }
    Map<String, Slow> found = new HashMap<>();
    for (Map.Entry<List<String>, Pace> e : slow) {
      List<String> unexplained = new ArrayList<>(e.getKey());
      unexplained.removeAll(fast);
      if (unexplained.size() == 1) {
        String server = unexplained.get(0);
        double pace = e.getValue().bytesPerSecond();
        Slow known = found.get(server);
        if (known == null || pace < known.bytesPerSecond()) {
          found.put(server, new Slow(server, pace, fastest));
        }
      }
    }
    return List.copyOf(found.values());
  }

  /**
   * A server found slow.
   *
   * @param bytesPerSecond the pace of the slowest set of servers that names it
   * @param fastestBytesPerSecond the fastest set's pace
   */
  public record Slow(String serverId, double bytesPerSecond, double fastestBytesPerSecond) {}

  /** Decaying figures of one set of servers. */
  private static final class Pace {
    int outstanding;
    double busyNanos;
    double bytes;
    long advancedAt;

    Pace(long now) {
      this.advancedAt = now;
    }

    /** Decays the figures to {@code now}, then counts the busy time since the last advance. */
    void advance(long now) {
      long elapsed = now - advancedAt;
      if (elapsed <= 0) {
        return;
      }
      double kept = Math.pow(0.5, elapsed / (double) HALF_LIFE.toNanos());
      busyNanos *= kept;
      bytes *= kept;
      if (outstanding > 0) {
        busyNanos += elapsed;
      }
      advancedAt = now;
    }

    double bytesPerSecond() {
      // A push acknowledged within the clock's resolution is as fast as can be told.
      return bytes * 1e9 / Math.max(busyNanos, 1_000);
    }

    /** Nothing in flight and too little left to matter. */
    boolean forgotten() {
      return outstanding == 0 && busyNanos < 1_000_000 && bytes < 1024;
    }
  }
}
