package io.sluice.client.spark.read;

import java.io.IOException;

/**
 * A partition could not be read completely and correctly: a server error that retrying did not
 * cure, a lost connection, a missing block. The reader turns it into Spark's
 * {@code FetchFailedException} so that the map output is computed again.
 */
final class PartitionFetchException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int partition;
  private final long taskAttemptId;

  /**
   * @param taskAttemptId the map attempt whose output is at fault, or -1 when no single one is
   */
  PartitionFetchException(int partition, long taskAttemptId, String message, Throwable cause) {
    super(message, cause);
    this.partition = partition;
    this.taskAttemptId = taskAttemptId;
  }

  int partition() {
    return partition;
  }

  /** The map attempt whose output is at fault, or -1 when no single one is. */
  long taskAttemptId() {
    return taskAttemptId;
  }
}
