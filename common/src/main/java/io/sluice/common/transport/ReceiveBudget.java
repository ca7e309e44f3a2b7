package io.sluice.common.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A server's bound on the memory its connections hold in frames being received ({@link
 * TransportOptions#RECEIVE_MEMORY}). A connection reserves a frame's declared length before it
 * reads the frame's body and gives it back once the frame was handled; a connection whose frame
 * does not fit stops reading and is granted its reservation as others give theirs back.
 *
 * <p>Reserving the whole frame up front, rather than counting bytes as they arrive, means that a
 * granted frame can always complete: connections never hold partial frames that wait for each
 * other's memory. A frame that stalls holds its reservation until the connection is closed for it
 * ({@link TransportOptions#FRAME_TIMEOUT}).
 *
 * <p>So that frames that stall (a hostile client, a frozen one) delay nobody with smaller frames, a
 * frame of {@code n} bytes is granted only while, after it, room for {@code n} more bytes stays
 * free, up to {@code capacity - maxFrameSize} (so that one frame of the largest size still fits an
 * empty budget): stalled frames hold at most {@code capacity - n} between them, so a frame of at
 * most half their size always fits. Frames waiting are granted in order of arrival, but one that
 * fits passes those before it that do not; once the oldest has waited {@link #PATIENCE_NANOS} (a
 * second), none passes it while the frames that passed waiting ones are what keeps it out, so a
 * stream of small frames cannot starve a large one, while frames that held the budget before
 * (stalled ones, say) stop nobody from passing.
 *
 * <p>Thread-safe; grants run on the thread that gave bytes back, and a waiter hands its grant to
 * its own event loop.
 */
public final class ReceiveBudget {
  /** How long the oldest waiting frame lets others pass it whatever keeps it out. */
  static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Told when a queued reservation was made on its behalf: it now owns those bytes. */
  public interface Waiter {
    void granted();
  }

  private record Request(long bytes, Waiter waiter, long sinceNanos) {}

  private final long capacity;

  /** The most room a frame keeps free behind it: {@code capacity - maxFrameSize}. */
  private final long maxHeadroom;

  private final LongSupplier nanoClock;
  private final ArrayDeque<Request> queue = new ArrayDeque<>();

  /** Reservations held, counted by length. */
  private final TreeMap<Long, Integer> held = new TreeMap<>();

  /**
   * The reservations among {@link #held} granted while older frames waited (they passed them),
   * counted by length; forgotten once nothing waits. A release is taken as a passer's when one of
   * its length is held: lengths vary, and a mistake only shifts which frames may pass, never what
   * is reserved.
   */
  private final TreeMap<Long, Integer> passers = new TreeMap<>();

  private long passerBytes;
  private long reserved;
  private long peakReserved;

  /** A budget whose frames may be as large as the budget (no room is kept behind a frame). */
  public ReceiveBudget(long capacity) {
    this(capacity, capacity);
  }

  /**
   * @param maxFrameSize the largest frame that may be reserved, at most {@code capacity}
   */
  public ReceiveBudget(long capacity, long maxFrameSize) {
    this(capacity, maxFrameSize, System::nanoTime);
  }

  ReceiveBudget(long capacity, long maxFrameSize, LongSupplier nanoClock) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    if (maxFrameSize < 1 || maxFrameSize > capacity) {
      throw new IllegalArgumentException(
          "the largest frame ("
              + maxFrameSize
              + " bytes) must fit a receive budget of "
              + capacity
              + " bytes");
    }
    this.capacity = capacity;
    this.maxHeadroom = capacity - maxFrameSize;
    this.nanoClock = nanoClock;
  }

  public long capacity() {
    return capacity;
  }

  /**
   * Reserves {@code bytes} now if they fit and no frame waiting before the caller is owed them;
   * otherwise queues {@code waiter}, which is told once the bytes are reserved for it.
   *
   * @return true when reserved now, false when queued
   */
  public boolean reserveOrQueue(long bytes, Waiter waiter) {
    if (bytes < 0 || bytes > capacity - headroom(bytes)) {
      // Configuration validation keeps the largest frame within the budget; a bigger request would
      // wait forever.
      throw new IllegalArgumentException(
          "cannot reserve " + bytes + " bytes of a " + capacity + "-byte receive budget");
    }
    synchronized (this) {
      if (fits(bytes) && mayPass()) {
        reserve(bytes, !queue.isEmpty());
        return true;
      }
      queue.addLast(new Request(bytes, waiter, nanoClock.getAsLong()));
      return false;
    }
  }

  /**
   * Takes a queued waiter out of the queue. Returns false when it was already granted (its grant
   * may still be on its way to it), so the caller then owns the bytes and must release them.
   */
  public boolean cancel(Waiter waiter) {
    List<Waiter> granted = new ArrayList<>(0);
    boolean removed;
    synchronized (this) {
      removed = queue.removeIf(r -> r.waiter == waiter);
      if (removed) {
        // The oldest may have gone: those behind it that fit are granted now, not at the next
        // release, which may be a frame timeout away.
        grantWaiting(granted);
      }
    }
    for (Waiter w : granted) {
      w.granted();
    }
    return removed;
  }

  /**
   * Gives back one reservation of {@code bytes}, and grants the queued reservations that now fit.
   */
  public void release(long bytes) {
    if (bytes == 0) {
      return;
    }
    List<Waiter> granted = new ArrayList<>(0);
    synchronized (this) {
      if (!take(held, bytes)) {
        throw new IllegalStateException(
            "releasing " + bytes + " bytes, which no reservation holds");
      }
      if (take(passers, bytes)) {
        passerBytes -= bytes;
      }
      reserved -= bytes;
      grantWaiting(granted);
    }
    for (Waiter waiter : granted) {
      waiter.granted();
    }
  }

  /**
   * Grants, oldest first, the waiting frames that fit; a later frame passes an older one that does
   * not fit only while {@link #mayPass} allows it.
   */
  private void grantWaiting(List<Waiter> granted) {
    Iterator<Request> it = queue.iterator();
    // Granting a frame that passes leaves mayPass's answer as it was (it adds as much to the
    // passers as to what is reserved): it is asked again only when the oldest changes.
    Request oldest = null;
    boolean pass = false;
    while (it.hasNext()) {
      Request next = it.next();
      if (queue.peekFirst() != oldest) {
        oldest = queue.peekFirst();
        pass = mayPass();
      }
      if (next != oldest && !pass) {
        return;
      }
      if (fits(next.bytes)) {
        it.remove();
        reserve(next.bytes, next != oldest);
        granted.add(next.waiter);
      }
    }
  }

  /**
   * Whether a frame may be granted before the oldest waiting one (which does not fit: the queue is
   * granted whenever room is given back): while the oldest has waited less than {@link
   * #PATIENCE_NANOS}, or when it would not fit even if every frame that passed waiting frames were
   * given back (what holds it out was there before, stalled perhaps, and a frame that passes takes
   * nothing from it).
   */
  private boolean mayPass() {
    Request oldest = queue.peekFirst();
    return oldest == null
        || nanoClock.getAsLong() - oldest.sinceNanos < PATIENCE_NANOS
        || !fitsWithoutPassers(oldest.bytes);
  }

  private boolean fits(long bytes) {
    return reserved + bytes + headroom(bytes) <= capacity;
  }

  /** Whether {@code bytes} would fit if every reservation that passed were given back. */
  private boolean fitsWithoutPassers(long bytes) {
    return reserved - passerBytes + bytes + headroom(bytes) <= capacity;
  }

  private long headroom(long bytes) {
    return Math.min(bytes, maxHeadroom);
  }

  public synchronized long reservedBytes() {
    return reserved;
  }

  /** The most ever reserved at once. */
  public synchronized long peakReservedBytes() {
    return peakReserved;
  }

  public synchronized int queuedCount() {
    return queue.size();
  }

  /**
   * @param passing whether frames older than this one wait
   */
  private void reserve(long bytes, boolean passing) {
    held.merge(bytes, 1, Integer::sum);
    if (passing) {
      passers.merge(bytes, 1, Integer::sum);
      passerBytes += bytes;
    } else if (queue.isEmpty()) {
      passers.clear();
      passerBytes = 0;
    }
    reserved += bytes;
    peakReserved = Math.max(peakReserved, reserved);
  }

  /** Takes one count of {@code bytes} from {@code counts}; false when it holds none. */
  private static boolean take(TreeMap<Long, Integer> counts, long bytes) {
    Integer count = counts.get(bytes);
    if (count == null) {
      return false;
    }
    if (count == 1) {
      counts.remove(bytes);
    } else {
      counts.put(bytes, count - 1);
    }
    return true;
  }
}
