package io.sluice.common.shuffle;

import java.time.Duration;

/**
 * How patiently a client retries what can succeed on retry (a server that answered with a retriable
 * status such as NO_BUFFER or BUSY): up to {@code maxRetries} times, waiting {@code firstWait} and
 * doubling up to {@code maxWait}.
 */
public record Backoff(Duration firstWait, Duration maxWait, int maxRetries) {
  /** The longest wait between two retries unless configured otherwise. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(2);

  public Backoff {
    if (firstWait.isNegative() || maxWait.compareTo(firstWait) < 0 || maxRetries < 0) {
      throw new IllegalArgumentException(
          "invalid back-off: first wait "
              + firstWait
              + ", max wait "
              + maxWait
              + ", retries "
              + maxRetries);
    }
  }

  /** Milliseconds to wait before retry number {@code retry} (0 for the first). */
  public long delayMillis(int retry) {
    long first = Math.max(1, firstWait.toMillis());
    return Math.min(maxWait.toMillis(), first << Math.min(Math.max(retry, 0), 20));
  }
}
