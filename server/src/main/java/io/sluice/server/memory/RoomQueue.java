package io.sluice.server.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pushes waiting, first come first served, for the push pool to have room for them again.
 *
 * <p>Whether a push fits is known only when its blocks are placed ({@link
 * PushBufferPool#tryAllocate} finds runs of pages inside held chunks, or a new chunk), so the pool
 * is taken to have room until a push is refused for want of it. From then on the pool is
 * <em>short</em>: a push waits until blocks of at least its size were freed since (a credit that
 * pushes let in consume, so that one freed block does not let in every waiting connection), and the
 * pool stops being short once what it holds falls below the high watermark, which lets every waiter
 * in. Room is not reserved: a push let in may still find the pool full, is refused as any other,
 * and makes the pool short again.
 */
final class RoomQueue {
  private record Waiter(long bytes, Runnable resume) {}

  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

  /** Bytes of blocks freed since the pool became short and not yet handed to a waiter. */
  private final AtomicLong credit = new AtomicLong();

  private volatile boolean shortOfRoom;

  /** Written under the lock, read without it by {@link #freed} on every free. */
  private volatile int size;

  /** A push found no room: pushes wait from now on until blocks are freed. */
  void pushRefused() {
    synchronized (waiters) {
      shortOfRoom = true;
      credit.set(0);
    }
  }

  /**
   * Blocks taking {@code bytes} were freed; {@code belowHighWatermark} when the pool now holds less
   * than its high watermark. Lets in the waiters at the head of the queue that this makes room for.
   */
  void freed(long bytes, boolean belowHighWatermark) {
    if (!shortOfRoom || (bytes == 0 && !belowHighWatermark)) {
      return;
    }
    if (belowHighWatermark) {
      shortOfRoom = false;
    } else {
      credit.addAndGet(bytes);
    }
    if (size == 0) {
      return;
    }
    List<Runnable> woken;
    synchronized (waiters) {
      woken = letInWhatFits();
    }
    woken.forEach(Runnable::run);
  }

  /** Takes the waiters at the head of the queue that there is room for off it. Under the lock. */
  private List<Runnable> letInWhatFits() {
    List<Runnable> woken = new ArrayList<>();
    while (!waiters.isEmpty() && takeRoom(waiters.peekFirst().bytes)) {
      woken.add(waiters.removeFirst().resume);
    }
    size = waiters.size();
    return woken;
  }

  /** True when the pool has room for {@code bytes} and nobody waits before; else queues. */
  boolean hasRoomOrQueue(long bytes, Runnable resume) {
    if (!shortOfRoom && size == 0) {
      return true; // the common case, without the lock
    }
    synchronized (waiters) {
      if (waiters.isEmpty() && takeRoom(bytes)) {
        return true;
      }
      waiters.addLast(new Waiter(bytes, resume));
      // Announced before the room is looked at again: a free that happened in between either sees
      // this waiter or its credit is seen here (both are volatile).
      size = waiters.size();
      if (waiters.size() > 1 || !takeRoom(bytes)) {
        return false;
      }
      waiters.removeLast();
      size = waiters.size();
      return true;
    }
  }

  /**
   * Takes a waiter back; false when it was let in already. The waiters behind it may fit what it
   * waited for.
   */
  boolean cancel(Runnable resume) {
    List<Runnable> woken;
    boolean removed;
    synchronized (waiters) {
      removed = waiters.removeIf(w -> w.resume == resume);
      woken = removed ? letInWhatFits() : List.of();
    }
    woken.forEach(Runnable::run);
    return removed;
  }

  int size() {
    return size;
  }

  /** Whether there is room for {@code bytes}, consuming credit for them. Under the lock. */
  private boolean takeRoom(long bytes) {
    if (!shortOfRoom) {
      return true;
    }
    if (credit.get() < bytes) {
      return false;
    }
    credit.addAndGet(-bytes);
    return true;
  }
}
