package io.sluice.client.core.read;

import io.sluice.common.shuffle.Backoff;
import io.sluice.common.shuffle.IndexEntry;

/**
 * How a reader fetches.
 *
 * @param maxBytesInFlight bytes requested and not yet consumed by the task
 * @param maxRequestBytes the largest read, and the page size of memory and index reads (at least
 *     one index entry)
 * @param backoff retries of a request answered with a retriable status; a request that timed out is
 *     retried once
 */
public record FetchSettings(long maxBytesInFlight, int maxRequestBytes, Backoff backoff) {

  public FetchSettings {
    if (maxBytesInFlight <= 0 || maxRequestBytes < IndexEntry.SIZE) {
      throw new IllegalArgumentException(
          "invalid fetch settings: "
              + maxBytesInFlight
              + " bytes in flight, "
              + maxRequestBytes
              + " bytes per request");
    }
  }

  /**
   * Settings whose single read stays within half of {@code maxFrameSize}, which leaves room for a
   * memory page's block descriptors, and within the bytes in flight.
   */
  public static FetchSettings of(
      long maxBytesInFlight, long maxRequestBytes, long maxFrameSize, Backoff backoff) {
    long request = Math.min(maxRequestBytes, Math.min(maxBytesInFlight, maxFrameSize / 2));
    return new FetchSettings(maxBytesInFlight, (int) request, backoff);
  }
}
