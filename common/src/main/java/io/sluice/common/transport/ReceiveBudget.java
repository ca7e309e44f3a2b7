package io.sluice.common.transport;

import java.util.ArrayDeque;

/**
 * A server's bound on the memory its connections hold in frames being received
 * ({@link TransportOptions#RECEIVE_MEMORY}). A connection reserves a frame's declared length before
 * it reads the frame's body and gives it back once the frame was handled; a connection whose frame
 * does not fit stops reading and is granted its reservation, first come first served, as others
 * give theirs back.
 *
 * <p>Reserving the whole frame up front, rather than counting bytes as they arrive, means that a
 * granted frame can always complete: connections never hold partial frames that wait for each
 * other's memory. A frame that stalls holds its reservation until the connection is closed for it
 * ({@link TransportOptions#FRAME_TIMEOUT}).
 *
 * <p>Thread-safe; grants run on the thread that gave bytes back, and a waiter hands its grant to its
 * own event loop.
 */
public final class ReceiveBudget {
  /** Told when a queued reservation was made on its behalf: it now owns those bytes. */
  public interface Waiter {
    void granted();
  }

  private record Request(long bytes, Waiter waiter) {}

  private final long capacity;
  private final ArrayDeque<Request> queue = new ArrayDeque<>();
  private long reserved;
  private long peakReserved;

  public ReceiveBudget(long capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
  }

  public long capacity() {
    return capacity;
  }

  /**
   * Reserves {@code bytes} now if they fit and nobody is queued before the caller; otherwise queues
   * {@code waiter}, which is told once the bytes are reserved for it.
   *
   * @return true when reserved now, false when queued
   */
  public boolean reserveOrQueue(long bytes, Waiter waiter) {
    if (bytes < 0 || bytes > capacity) {
      // Configuration validation keeps the largest frame within the budget; a bigger request would
      // block the queue forever.
      throw new IllegalArgumentException(
          "cannot reserve " + bytes + " bytes of a " + capacity + "-byte receive budget");
    }
    synchronized (this) {
      if (queue.isEmpty() && reserved + bytes <= capacity) {
        reserve(bytes);
        return true;
      }
      queue.addLast(new Request(bytes, waiter));
      return false;
    }
  }

  /**
   * Takes a queued waiter out of the queue. Returns false when it was already granted (its grant
   * may still be on its way to it), so the caller then owns the bytes and must release them.
   */
  public synchronized boolean cancel(Waiter waiter) {
    return queue.removeIf(r -> r.waiter == waiter);
  }

  /** Gives back bytes reserved earlier, and grants queued reservations that now fit, in order. */
  public void release(long bytes) {
    if (bytes == 0) {
      return;
    }
    ArrayDeque<Waiter> granted = new ArrayDeque<>(0);
    synchronized (this) {
      if (bytes < 0 || bytes > reserved) {
        throw new IllegalStateException(
            "releasing " + bytes + " bytes with only " + reserved + " reserved");
      }
      reserved -= bytes;
      while (!queue.isEmpty() && reserved + queue.peekFirst().bytes <= capacity) {
        Request next = queue.removeFirst();
        reserve(next.bytes);
        granted.add(next.waiter);
      }
    }
    for (Waiter waiter : granted) {
      waiter.granted();
    }
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

  private void reserve(long bytes) {
    reserved += bytes;
    peakReserved = Math.max(peakReserved, reserved);
  }
}
