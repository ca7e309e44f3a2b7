package io.sluice.server.handler;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds the commits and block-count lookups waiting for the control threads, by their entries
 * (partitions or attempts). Each holds its decoded arrays on the heap until it runs, while the
 * receive memory of its frame is given back as soon as it is queued: without a bound, a client
 * pipelining large commits, or control threads held up by a hung disk, would grow the heap until
 * the server stops. One request is always let in, however large (a frame bounds it).
 */
final class QueuedBookkeeping {
  /** 4 M entries: at most 32 MiB of arrays (8 bytes an entry). */
  static final long DEFAULT_MAX_ENTRIES = 4L << 20;

  private final long maxEntries;
  private final AtomicLong queued = new AtomicLong();

  QueuedBookkeeping(long maxEntries) {
    this.maxEntries = maxEntries;
  }

  /** Takes room for {@code entries}; false when the queue is full. */
  boolean tryAdmit(int entries) {
    while (true) {
      long current = queued.get();
      if (current > 0 && current + entries > maxEntries) {
        return false;
      }
      if (queued.compareAndSet(current, current + entries)) {
        return true;
      }
    }
  }

  void release(int entries) {
    queued.addAndGet(-entries);
  }

  long queuedEntries() {
    return queued.get();
  }
}
