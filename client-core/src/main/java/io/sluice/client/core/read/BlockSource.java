package io.sluice.client.core.read;

/** Where a reduce task takes its fetched blocks from, one at a time, on the task's thread. */
public interface BlockSource {

  /**
   * The next block, waiting for one if needed; null once every partition was read completely.
   * Ownership of the block passes to the caller, who hands it back through {@link #consumed}.
   *
   * @param whileWaiting runs every so often while nothing is ready (to notice a killed task)
   * @throws PartitionFetchException when a partition cannot be read; thrown again on later calls
   */
  FetchedBlock take(Runnable whileWaiting) throws InterruptedException, PartitionFetchException;

  /** Releases a block taken from here and returns its bytes to the fetch budget. */
  void consumed(FetchedBlock block);

  /** Milliseconds the requests answered so far took, from sending to answer. */
  long requestMillis();
}
