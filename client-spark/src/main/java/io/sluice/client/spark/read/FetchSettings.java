package io.sluice.client.spark.read;

import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportConf;
import java.time.Duration;

/**
 * How a reducer fetches: bytes in flight, the size of one read, and the back-off of retriable
 * failures.
 *
 * @param maxBytesInFlight bytes requested and not yet consumed by the task
 * @param maxRequestBytes the largest read of several blocks, and the page size of memory reads
 * @param retryWait the first back-off; it doubles on each retry, up to
 *     {@link #MAX_RETRY_WAIT_MILLIS}
 * @param maxRetries retries of one request that failed with a retriable status or timed out
 */
record FetchSettings(
    long maxBytesInFlight, int maxRequestBytes, Duration retryWait, int maxRetries) {

  static final long MAX_RETRY_WAIT_MILLIS = 2_000;

  FetchSettings {
    if (maxBytesInFlight <= 0 || maxRequestBytes <= 0 || maxRetries < 0) {
      throw new IllegalArgumentException("invalid fetch settings: " + maxBytesInFlight + ", "
          + maxRequestBytes + ", " + maxRetries);
    }
  }

  /**
   * The client's settings. One read stays within half the transport's frame limit, which leaves
   * room for a memory page's block descriptors, and within the bytes in flight.
   */
  static FetchSettings from(SluiceConf conf) {
    long inFlight = conf.get(SluiceClientOptions.FETCH_MAX_IN_FLIGHT);
    long request = Math.min(conf.get(SluiceClientOptions.FETCH_MAX_REQUEST),
        Math.min(inFlight, new TransportConf(conf).maxFrameSize() / 2));
    return new FetchSettings(inFlight, (int) request, conf.get(SluiceClientOptions.RETRY_WAIT),
        conf.get(SluiceClientOptions.PUSH_RETRIES));
  }

  /** Back-off before retry number {@code retry} (0 for the first). */
  long backoffMillis(int retry) {
    long first = Math.max(1, retryWait.toMillis());
    return Math.min(MAX_RETRY_WAIT_MILLIS, first << Math.min(retry, 20));
  }
}
