package io.sluice.client.core.read;

import java.io.IOException;

/**
 * A partition could not be read completely and correctly from any of its locations: a committed
 * block or a commit that no reachable server holds, or a fetch that could not go on. A Spark reader
 * turns it into one {@code FetchFailedException} for the whole shuffle, so that the map stage runs
 * again once.
 */
public final class PartitionFetchException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int partition;

  public PartitionFetchException(int partition, String message, Throwable cause) {
    super(message, cause);
    this.partition = partition;
  }

  public int partition() {
    return partition;
  }
}
