package io.sluice.client.core.push;

import io.sluice.common.shuffle.Backoff;

/**
 * How a map attempt pushes.
 *
 * @param batchSize blocks bound for one chain of servers (a primary and its replicas) are packed
 *     into pushes of about this many bytes
 * @param maxBytesBuffered bytes of block buffers (their capacity) the attempt holds, queued in
 *     batches or pushed and not yet acknowledged, whatever the number of servers; the attempt waits
 *     when it would pass this
 * @param backoff retries of a push or commit answered with a retriable status (NO_BUFFER, BUSY)
 * @param maxRelocations how many times the blocks of one push may be sent to a new location after
 *     the old one failed, before the attempt gives up
 */
public record PushSettings(
    long batchSize, long maxBytesBuffered, Backoff backoff, int maxRelocations) {

  public PushSettings {
    if (batchSize <= 0 || maxBytesBuffered < batchSize || maxRelocations < 0) {
      throw new IllegalArgumentException(
          "invalid push settings: batch "
              + batchSize
              + " bytes, "
              + maxBytesBuffered
              + " bytes buffered, "
              + maxRelocations
              + " relocations");
    }
  }
}
