package io.sluice.client.spark;

import io.sluice.client.core.TransferCounters;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * What the tasks of one shuffle met, counted in Spark accumulators that the driver registers with
 * the shuffle and the handle carries to every task: Spark returns each successful task's counts to
 * the driver with the task's end (and writes them to the event log), where the Sluice tab of the UI
 * sums them per shuffle. A task's pushes and reads count from its own deserialized copy.
 */
public final class ShuffleCounters implements TransferCounters, Serializable {
  private static final long serialVersionUID = 1L;

  /** Compressed (and sealed) bytes of the blocks map tasks pushed. */
  public static final String BYTES_PUSHED = "bytesPushed";

  /** Compressed (and sealed) bytes of the blocks reduce tasks read. */
  public static final String BYTES_READ = "bytesRead";

  public static final String PUSH_RETRIES = "pushRetries";
  public static final String FETCH_RETRIES = "fetchRetries";
  public static final String REPLICA_READS = "replicaReads";

  private final LongAccumulator bytesPushed;
  private final LongAccumulator bytesRead;
  private final LongAccumulator pushRetries;
  private final LongAccumulator fetchRetries;
  private final LongAccumulator replicaReads;

  private ShuffleCounters(SparkContext sc, int shuffleId) {
    String prefix = "Sluice shuffle " + shuffleId + ": ";
    bytesPushed = sc.longAccumulator(prefix + "bytes pushed");
    bytesRead = sc.longAccumulator(prefix + "bytes read");
    pushRetries = sc.longAccumulator(prefix + "push retries");
    fetchRetries = sc.longAccumulator(prefix + "fetch retries");
    replicaReads = sc.longAccumulator(prefix + "replica reads");
  }

  /** Registers the counters of a new shuffle; on the driver. */
  static ShuffleCounters register(SparkContext sc, int shuffleId) {
    return new ShuffleCounters(sc, shuffleId);
  }

  /** Each counter's accumulator id, by the names above: how listeners find them in task ends. */
  public Map<String, Long> accumulatorIds() {
    Map<String, Long> ids = new LinkedHashMap<>();
    ids.put(BYTES_PUSHED, bytesPushed.id());
    ids.put(BYTES_READ, bytesRead.id());
    ids.put(PUSH_RETRIES, pushRetries.id());
    ids.put(FETCH_RETRIES, fetchRetries.id());
    ids.put(REPLICA_READS, replicaReads.id());
    return ids;
  }

  public void pushed(long bytes) {
    add(bytesPushed, bytes);
  }

  public void read(long bytes) {
    add(bytesRead, bytes);
  }

  @Override
  public void pushRetried() {
    add(pushRetries, 1);
  }

  @Override
  public void fetchRetried() {
    add(fetchRetries, 1);
  }

  @Override
  public void replicaRead() {
    add(replicaReads, 1);
  }

  // LongAccumulator is not thread-safe, and retries are counted on event loops and timers.
  private static void add(LongAccumulator counter, long n) {
    synchronized (counter) {
      counter.add(n);
    }
  }
}
