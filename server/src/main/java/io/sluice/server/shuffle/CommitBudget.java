package io.sluice.server.shuffle;

import io.sluice.common.protocol.StatusCode;
import io.sluice.server.ServerOptions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap that shuffle bookkeeping may take on this server, over every shuffle it holds: the
 * partitions' states and commit counts and the shuffles' attempt tables reserve their growth here
 * first, so that no client (one committing thousands of attempts to thousands of partitions, or
 * naming millions of partitions, say) can take the heap past what {@code bin/start-server.sh} gave
 * it for {@code heap.commit.pairs}. A commit or push that would pass it is refused with REFUSED,
 * naming the key. Thread-safe.
 */
final class CommitBudget {
  private final long capacity;
  private final AtomicLong used = new AtomicLong();

  CommitBudget(long capacity) {
    this.capacity = capacity;
  }

  /**
   * Takes {@code bytes} for a structure's growth.
   *
   * @throws RequestRejectedException REFUSED when they would pass the capacity
   */
  void reserve(long bytes) {
    long now;
    do {
      now = used.get();
      if (now + bytes > capacity) {
        throw refused();
      }
    } while (!used.compareAndSet(now, now + bytes));
  }

  /**
   * Takes {@code bytes} even past the capacity: for what a server served before its restart, which
   * it serves again rather than drop (a lowered {@code heap.commit.pairs} then refuses new work
   * until enough is deleted).
   */
  void reserveAnyway(long bytes) {
    used.addAndGet(bytes);
  }

  private RequestRejectedException refused() {
    return new RequestRejectedException(
        StatusCode.REFUSED,
        "the partitions and commit counts "
            + "of this server's shuffles would pass the "
            + capacity
            + " bytes of heap it is sized "
            + "for ('"
            + ServerOptions.HEAP_COMMIT_PAIRS.key()
            + "' x 1.5 bytes); raise it (and "
            + "the heap with it) or spread the shuffle over more servers");
  }

  void release(long bytes) {
    used.addAndGet(-bytes);
  }

  long capacity() {
    return capacity;
  }

  /** Bytes reserved now. */
  long used() {
    return used.get();
  }
}
