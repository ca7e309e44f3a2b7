package io.sluice.client.core;

/**
 * What a client's pushes and reads met on their way, for whoever reports it (the Spark client
 * counts it per shuffle for its tab in Spark's UI). Called on event loops and timers, so
 * implementations are thread-safe and never block.
 */
public interface TransferCounters {
  /** Counts nothing. */
  TransferCounters NONE = new TransferCounters() {};

  /** A push or a commit is sent again, after a retriable status or a timeout. */
  default void pushRetried() {}

  /** A read request is sent again, after a retriable status or a timeout. */
  default void fetchRetried() {}

  /**
   * A location is read from the next server of its chain, because the server before could not serve
   * it (unreachable, failed, or answered without blocks its replica holds).
   */
  default void replicaRead() {}
}
