package io.sluice.server.shuffle;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The map attempts that committed to one shuffle on this server, numbered 0, 1, 2... in the order of
 * their first commit. Partitions record commits by number ({@link CommittedCounts}), so that an
 * attempt's 64-bit id is held once per shuffle rather than once per partition it wrote to: the
 * heap for commits grows with maps + maps x partitions / 8 bytes, not 12 x maps x partitions.
 * Thread-safe: the partitions of a shuffle commit concurrently.
 */
final class AttemptNumbers {
  private final Map<Long, Integer> numbers = new HashMap<>();
  private long[] attempts = new long[16];

  /** The attempt's number, given it now if it has none. */
  synchronized int numberOf(long attempt) {
    Integer known = numbers.get(attempt);
    if (known != null) {
      return known;
    }
    int number = numbers.size();
    if (number == attempts.length) {
      attempts = Arrays.copyOf(attempts, number + (number >> 1));
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
    return 80L * numbers.size() + 8L * attempts.length;
  }
}
