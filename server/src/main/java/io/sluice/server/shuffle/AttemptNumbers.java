package io.sluice.server.shuffle;

import io.sluice.common.protocol.StatusCode;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The map attempts that committed to one shuffle on this server, numbered 0, 1, 2... in the order
 * of their first commit. Partitions record commits by number ({@link CommittedCounts}), so that an
 * attempt's 64-bit id is held once per shuffle rather than once per partition it wrote to: the heap
 * for commits grows with maps + maps x partitions / 8 bytes, not 12 x maps x partitions.
 * Thread-safe: the partitions of a shuffle commit concurrently.
 */
final class AttemptNumbers {
  /** Heap of one attempt's entry in the table: the map's entry, its boxed key and value. */
  private static final long ENTRY_BYTES = 80;

  private final Map<Long, Integer> numbers = new HashMap<>();
  private final CommitBudget budget;
  private long[] attempts = new long[16];

  /**
   * What this shuffle's bookkeeping took from the server's budget: this table, its partitions'
   * states and their commit counts.
   */
  private long reserved;

  private boolean released;

  /** Set while a restart restores the shuffle: reservations then never refuse. */
  private boolean restoring;

  AttemptNumbers(CommitBudget budget) {
    this.budget = budget;
  }

  /**
   * Takes {@code bytes} of the server's commit budget for this shuffle's bookkeeping.
   *
   * @throws RequestRejectedException REFUSED when the budget is spent, UNKNOWN_SHUFFLE when the
   *     shuffle was deleted meanwhile (its reservation was given back already)
   */
  synchronized void reserve(long bytes) {
    if (released) {
      throw new RequestRejectedException(StatusCode.UNKNOWN_SHUFFLE, "the shuffle was deleted");
    }
    if (restoring) {
      budget.reserveAnyway(bytes);
    } else {
      budget.reserve(bytes);
    }
    reserved += bytes;
  }

  /**
   * Makes reservations never refuse (true) while a restart restores the shuffle, or refuse again.
   */
  synchronized void restoring(boolean on) {
    restoring = on;
  }

  /** Gives back everything this shuffle's bookkeeping took; once, when the shuffle goes. */
  synchronized void release() {
    if (!released) {
      released = true;
      budget.release(reserved);
      reserved = 0;
    }
  }

  /** The attempt's number, given it now if it has none. */
  synchronized int numberOf(long attempt) {
    Integer known = numbers.get(attempt);
    if (known != null) {
      return known;
    }
    int number = numbers.size();
    int grown = number == attempts.length ? number + (number >> 1) : attempts.length;
    reserve(ENTRY_BYTES + 8L * (grown - attempts.length));
    if (number == attempts.length) {
      attempts = Arrays.copyOf(attempts, grown);
    }
    attempts[number] = attempt;
    numbers.put(attempt, number);
    return number;
  }

  /** The attempt's number, or -1 if it never committed here. */
  synchronized int find(long attempt) {
    Integer known = numbers.get(attempt);
    return known == null ? -1 : known;
  }

  /** The attempt with number {@code number}. */
  synchronized long attempt(int number) {
    if (number < 0 || number >= numbers.size()) {
      throw new IndexOutOfBoundsException("no attempt has number " + number);
    }
    return attempts[number];
  }

  /**
   * Heap the table takes: about 80 bytes per attempt for the map's entry, its boxed key and value,
   * and 8 for the array.
   */
  synchronized long heapBytes() {
    return ENTRY_BYTES * numbers.size() + 8L * attempts.length;
  }
}
