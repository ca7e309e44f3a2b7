package io.sluice.client.core.push;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How fast a JVM's pushes are acknowledged, by the servers they involve, to find a server that
 * takes blocks much more slowly than the others (a slow link, a failing disk, a server short of
 * memory that keeps answering NO_BUFFER): writers then move its partitions elsewhere ({@link
 * MapOutputPusher}), as they do from a lost server, but without sending again what it already took.
 *
 * <p>The pace of a set of servers (a push's chain: its primary and the replicas it is forwarded to)
 * is the bytes acknowledged per second that pushes to it were outstanding, from the first send of
 * each push (after its connection was made) to its answer: time with at least one push in flight
 * counts once, however many were. Writers report full pushes only (at least half the batch size): a
 * small push's time is mostly a round trip, whatever the link. Failed pushes count their time but
 * no bytes. Figures decay by half every {@link #HALF_LIFE}, bytes and time alike (a push's bytes as
 * if they had arrived evenly while it was in flight), so a set's pace is that of its recent pushes;
 * a set that is no longer pushed to fades below the thresholds below and is judged again when
 * pushed to.
 *
 * <p>Nothing is judged until a set has acknowledged {@code minEvidenceBytes} (at the default batch
 * size one full push does); from then on a set counts once it has that evidence, or a {@value
 * #SAMPLE_SHARE}th of it (a sample) while it is pushed to (a push outstanding, or one acknowledged
 * within the last {@link #HALF_LIFE}). The reference is the median, over servers, of each server's
 * best pace: that of the fastest set that counts involving it. A server's best pace is high as long
 * as one of its sets is healthy, so one slow server lowers the median no more than it lowers the
 * count, and with three servers or more one much faster than the rest raises nothing. A push that
 * crosses no link (one copy, to a server reached at one of this JVM's own addresses) is no measure
 * of the others' links: such a set gives no best pace while any set that counts crosses one, or
 * with two servers the local one would make the other slow. Samples count because a slow set holds
 * the writers for seconds and so gathers the evidence first, while a healthy set's short bursts,
 * with small batches, may stay below it: were only sets with the full evidence to count, the slow
 * set alone would set the reference, pass as healthy against itself, and blame its servers' other
 * partners instead. Round trips weigh more in a sample, which makes its pace low; a sample taken
 * while the machine was less busy than during the slow set's pushes makes it high, hence only fresh
 * samples count. Sets involving a server found slow lately give no server a best pace, lest the
 * others be held to its pace; where every set with evidence involves one, nothing is judged.
 *
 * <p>A set is slow when it was busy at least {@code minBusy} at a pace below the reference divided
 * by {@code slowRatio}; one that has acknowledged nothing yet, once it was busy for as long as a
 * set at that pace takes to acknowledge {@code minEvidenceBytes}, and {@value #STALL_FACTOR} times
 * {@code minBusy} at least (a cold JVM's or a server's first pushes may be slow). A set is fast
 * when it counts and is not slow. The servers of a slow set that are in no fast set are to blame:
 * one server, or (when the sets do not overlap, as pairs of servers often do not with two copies)
 * every server of the set. Shared by the JVM's writers, so that evidence gathered by many tasks
 * adds up. Thread-safe; never calls out while locked.
 *
 * <p>Servers found slow alone are remembered for {@link #MEMORY} after the last finding, as the
 * driver keeps a named one out of new locations for as long: the writers have moved off them by
 * then and their figures fade, but what they took is still read from them ({@link
 * #foundSlowRecently}). A pace found healthy within that time does not clear one: once the others'
 * paces have sunk with it, its own may look healthy while it still crawls.
 */
public final class PushPace {
  private static final Logger LOG = LoggerFactory.getLogger(PushPace.class);

  /** How fast old evidence fades. */
  static final Duration HALF_LIFE = Duration.ofSeconds(10);

  /** How often the verdict is worked out again; in between, writers get the last one. */
  static final Duration CHECK_INTERVAL = Duration.ofMillis(100);

  /** The default {@code slowRatio}: a server four times slower than the others is moved from. */
  public static final int DEFAULT_SLOW_RATIO = 4;

  static final Duration DEFAULT_MIN_BUSY = Duration.ofMillis(300);

  /** How many times {@code minBusy} a set that acknowledged nothing must have been busy. */
  static final int STALL_FACTOR = 4;

  /**
   * The longest busy time a stall must reach: faded from each instant on, busy time never exceeds
   * {@link #HALF_LIFE} / ln 2 (14.4 s), so a longer wait would never end. 13 s of it take 33 s.
   */
  static final double STALL_CEILING = 0.9 * HALF_LIFE.toNanos() / Math.log(2);

  static final long DEFAULT_MIN_EVIDENCE_BYTES = 256L << 10;

  /** A sample, which counts once some set has the evidence, is this share of the evidence. */
  static final int SAMPLE_SHARE = 4;

  /** How long a server found slow alone is remembered after the last finding. */
  static final Duration MEMORY = Duration.ofMinutes(1);

  /** Finds no server slow. */
  public static final PushPace OFF = new PushPace(0);

  private final int slowRatio;
  private final long minBusyNanos;
  private final long minEvidenceBytes;
  private final LongSupplier nanoClock;
  private final Map<List<String>, Pace> paces = new HashMap<>();
  private final Map<String, Long> foundSlowAt = new HashMap<>();
  private List<Slow> verdict = List.of();
  private long verdictAt;
  private boolean judged;

  /** The reference pace of the last verdict; NaN when it had too little evidence for one. */
  private double reference = Double.NaN;

  private long describedAt;
  private boolean described;

  /**
   * @param slowRatio how many times slower than the others' a server's pace must be for it to be
   *     slow; 0 finds none
   */
  public PushPace(int slowRatio) {
    this(slowRatio, DEFAULT_MIN_BUSY, DEFAULT_MIN_EVIDENCE_BYTES, System::nanoTime);
  }

  /**
   * @param minBusy how long pushes to a set of servers must have been outstanding before it may be
   *     found slow
   * @param minEvidenceBytes bytes a set of servers must have acknowledged before anything is judged
   *     and before its pace counts when it is no longer pushed to
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

  /**
   * A push to {@code servers} (sorted server ids) was sent; the returned timing is to be ended
   * once, when the push is acknowledged or fails.
   *
   * @param onThisHost whether the push crosses no link: its only server was reached at one of this
   *     JVM's own addresses
   */
  public Timing started(List<String> servers, boolean onThisHost) {
    if (!enabled()) {
      return new Timing(servers, 0);
    }
    synchronized (this) {
      long now = nanoClock.getAsLong();
      Pace pace = paces.computeIfAbsent(servers, s -> new Pace(now));
      pace.onThisHost = onThisHost;
      pace.advance(now);
      pace.outstanding++;
      return new Timing(servers, now);
    }
  }

  private void ended(Timing timing, long bytes) {
    if (!enabled()) {
      return;
    }
    synchronized (this) {
      Pace pace = paces.get(timing.servers);
      if (pace == null || timing.ended) {
        return;
      }
      timing.ended = true;
      long now = nanoClock.getAsLong();
      pace.advance(now);
      pace.outstanding--;
      // The busy time of a long push has been fading while it was in flight, so its bytes fade as
      // if they had arrived evenly over that time: arriving whole at the end, they would overstate
      // a slow set's pace (by 1.3x for an 8 s push).
      pace.bytes += bytes * arrivalWeight(now - timing.startedAt);
      pace.endedAt = now;
    }
  }

  /** Pushes to {@code servers} started and not ended. */
  synchronized int outstanding(List<String> servers) {
    Pace pace = paces.get(servers);
    return pace == null ? 0 : pace.outstanding;
  }

  /**
   * Whether {@code serverId} was found slow, alone rather than as one of a set, within the last
   * {@link #MEMORY}; readers read its replicas first.
   */
  public boolean foundSlowRecently(String serverId) {
    if (!enabled()) {
      return false;
    }
    synchronized (this) {
      return slowLately(nanoClock.getAsLong()).contains(serverId);
    }
  }

  /** The servers {@link #foundSlowRecently}. */
  public Set<String> foundSlowRecently() {
    if (!enabled()) {
      return Set.of();
    }
    synchronized (this) {
      return Set.copyOf(slowLately(nanoClock.getAsLong()));
    }
  }

  private Set<String> slowLately(long now) {
    foundSlowAt.values().removeIf(at -> now - at > MEMORY.toNanos());
    return foundSlowAt.keySet();
  }

  /**
   * The sets of servers found slow now, each with the paces that make it so. At DEBUG, the figures
   * behind the verdict are logged once per {@link #HALF_LIFE}, found slow or not.
   */
  public List<Slow> slowServers() {
    if (!enabled()) {
      return List.of();
    }
    boolean debug = LOG.isDebugEnabled();
    String figures = null;
    List<Slow> found;
    synchronized (this) {
      long now = nanoClock.getAsLong();
      if (!judged || now - verdictAt >= CHECK_INTERVAL.toNanos()) {
        verdict = judge(now);
        verdictAt = now;
        judged = true;
        for (Slow slow : verdict) {
          // A set blamed together names a slow server among others that may be healthy.
          if (slow.servers().size() == 1) {
            foundSlowAt.put(slow.servers().get(0), now);
          }
        }
        if (debug && (!described || now - describedAt >= HALF_LIFE.toNanos())) {
          figures = describe();
          describedAt = now;
          described = true;
        }
      }
      found = verdict;
    }
    if (figures != null) {
      LOG.debug(figures);
    }
    return found;
  }

  /** The last verdict's figures, each set's as of that verdict. */
  private String describe() {
    StringBuilder text =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "Push pace: reference %.2f MB/s, found slow %s, slow lately %s",
                reference / 1e6,
                verdict,
                foundSlowAt.keySet()));
    paces.forEach(
        (servers, pace) ->
            text.append(
                String.format(
                    Locale.ROOT,
                    "; %s%s %.2f MB/s (%.2f MB in %.1f s busy, %d outstanding)",
                    servers,
                    pace.onThisHost ? " on this host" : "",
                    pace.bytesPerSecond() / 1e6,
                    pace.bytes / 1e6,
                    pace.busyNanos / 1e9,
                    pace.outstanding)));
    return text.toString();
  }

  private List<Slow> judge(long now) {
    Set<String> slowLately = Set.copyOf(slowLately(now));
    // The sets that may set a pace: they count and involve no server found slow lately. Whether
    // a counting set crosses a link is asked of them all: while the only remote server is found
    // slow lately, a local set setting the pace would keep finding it slow.
    List<Map.Entry<List<String>, Pace>> measures = new ArrayList<>();
    boolean linksMeasured = false;
    for (Map.Entry<List<String>, Pace> e : paces.entrySet()) {
      Pace pace = e.getValue();
      pace.advance(now);
      if (counts(pace, now)) {
        linksMeasured |= !pace.onThisHost;
        if (e.getKey().stream().noneMatch(slowLately::contains)) {
          measures.add(e);
        }
      }
    }
    // Each server's best pace: that of the fastest of those sets involving it, crossing a link
    // where any counting set does.
    Map<String, Double> best = new HashMap<>();
    boolean evidence = false;
    for (Map.Entry<List<String>, Pace> e : measures) {
      Pace pace = e.getValue();
      evidence |= pace.bytes >= minEvidenceBytes;
      if (!(pace.onThisHost && linksMeasured)) {
        for (String server : e.getKey()) {
          best.merge(server, pace.bytesPerSecond(), Math::max);
        }
      }
    }
    paces.values().removeIf(Pace::forgotten);
    reference = Double.NaN;
    if (paces.size() < 2 || !evidence || best.isEmpty()) {
      return List.of();
    }
    List<Double> bests = new ArrayList<>(best.values());
    Collections.sort(bests);
    reference = bests.get(bests.size() / 2);
    Set<String> fast = new HashSet<>();
    List<Map.Entry<List<String>, Pace>> slow = new ArrayList<>();
    for (Map.Entry<List<String>, Pace> e : paces.entrySet()) {
      Pace pace = e.getValue();
      boolean slowPace = pace.bytesPerSecond() * slowRatio < reference;
      double busyNeeded = pace.bytes > 0 ? minBusyNanos : stallNanos(reference);
      if (slowPace && pace.busyNanos >= busyNeeded) {
        slow.add(e);
      } else if (!slowPace && counts(pace, now)) {
        fast.addAll(e.getKey());
      }
    }
    Map<List<String>, Slow> found = new HashMap<>();
    for (Map.Entry<List<String>, Pace> e : slow) {
      List<String> blamed = e.getKey().stream().filter(s -> !fast.contains(s)).toList();
      if (blamed.isEmpty()) {
        continue;
      }
      double pace = e.getValue().bytesPerSecond();
      Slow known = found.get(blamed);
      if (known == null || pace < known.bytesPerSecond()) {
        found.put(blamed, new Slow(blamed, pace, reference));
      }
    }
    return List.copyOf(found.values());
  }

  /** Whether a set's pace counts: it has the evidence, or a sample while it is pushed to. */
  private boolean counts(Pace pace, long now) {
    return pace.bytes >= minEvidenceBytes
        || (pace.bytes >= minEvidenceBytes / (double) SAMPLE_SHARE
            && (pace.outstanding > 0 || now - pace.endedAt <= HALF_LIFE.toNanos()));
  }

  /**
   * How long a set that has acknowledged nothing must have been busy to be slow. The reference may
   * itself be slow (the only evidence so far may be of a slow server's sets, so that a set with it
   * waiting for it looks like its partner's fault), so the wait scales with it, up to {@link
   * #STALL_CEILING}.
   */
  private double stallNanos(double referenceBytesPerSecond) {
    double atSlowPace = minEvidenceBytes * 1e9 * slowRatio / referenceBytesPerSecond;
    return Math.min(Math.max(STALL_FACTOR * minBusyNanos, atSlowPace), STALL_CEILING);
  }

  /** A push being timed, from its first send to its answer. */
  public final class Timing {
    private final List<String> servers;
    private final long startedAt;

    /** Set under the pace's lock, so that a second end changes nothing. */
    private boolean ended;

    private Timing(List<String> servers, long startedAt) {
      this.servers = servers;
      this.startedAt = startedAt;
    }

    /** The push was acknowledged with {@code bytes}, or failed with 0. */
    public void ended(long bytes) {
      PushPace.this.ended(this, bytes);
    }
  }

  /** The share of a span's figures that is left after decaying to its end, on average over it. */
  private static double arrivalWeight(long spanNanos) {
    return spanNanos <= 0 ? 1 : decayedSpan(spanNanos) / spanNanos;
  }

  /** How much busy time a span of {@code nanos} ending now weighs, each instant decayed since. */
  private static double decayedSpan(long nanos) {
    double halfLife = HALF_LIFE.toNanos();
    return halfLife / Math.log(2) * (1 - Math.pow(0.5, nanos / halfLife));
  }

  /**
   * Servers found slow: one, or several that are slow together and of which no pace tells which.
   *
   * @param servers their ids, sorted
   * @param bytesPerSecond the pace of the slowest set of servers that blames them
   * @param referenceBytesPerSecond the median of the servers' best paces (the faster of two)
   */
  public record Slow(List<String> servers, double bytesPerSecond, double referenceBytesPerSecond) {}

  /** Decaying figures of one set of servers. */
  private static final class Pace {
    /** Whether its pushes cross no link, as of the last one started. */
    boolean onThisHost;

    int outstanding;
    double busyNanos;
    double bytes;
    long advancedAt;

    /** When a push last ended. */
    long endedAt;

    Pace(long now) {
      this.advancedAt = now;
      this.endedAt = now;
    }

    /** Decays the figures to {@code now}, counting the busy time since the last advance. */
    void advance(long now) {
      long elapsed = now - advancedAt;
      if (elapsed <= 0) {
        return;
      }
      double kept = Math.pow(0.5, elapsed / (double) HALF_LIFE.toNanos());
      // Busy time decays from each instant on, so that a set's figures do not depend on how often
      // they are advanced.
      busyNanos = busyNanos * kept + (outstanding > 0 ? decayedSpan(elapsed) : 0);
      bytes *= kept;
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
