package io.sluice.client.spark.ui;

import java.util.List;
import org.apache.spark.util.kvstore.KVIndex;

/**
 * One shuffle as the Sluice tab shows it, kept in the application's status store (Spark's {@code
 * KVStore}: in memory for a live application, in memory or on disk in the history server, which
 * stores it as JSON).
 *
 * @param sluice whether the shuffle ran through Sluice (false: Spark's sort shuffle took it)
 * @param copies how many servers hold each partition (0 with the sort shuffle)
 * @param servers every server that held a partition, as {@code id@host:port}, first ones first
 * @param fallbackReason why Sluice could not take the shuffle, or null when it did
 * @param bytesPushed bytes of the blocks successful map tasks pushed, as the servers store them
 * @param bytesRead bytes of the blocks successful reduce tasks read, as the servers store them
 * @param pushRetries pushes and commits sent again after a retriable answer or a timeout
 * @param fetchRetries read requests sent again after a retriable answer or a timeout
 * @param replicaReads reads that moved to the next server of a partition's chain
 * @param relocations moves of partitions to new servers while the shuffle was written
 * @param relocatedPartitions partitions moved by those moves
 * @param fetchFailures tasks that failed reading the shuffle (Spark's {@code FetchFailed})
 * @param mapStageReruns attempts of the shuffle's map stage after its first
 */
public record ShuffleSummary(
    int shuffleId,
    int partitions,
    boolean sluice,
    int copies,
    List<String> servers,
    String fallbackReason,
    long bytesPushed,
    long bytesRead,
    long pushRetries,
    long fetchRetries,
    long replicaReads,
    int relocations,
    int relocatedPartitions,
    int fetchFailures,
    int mapStageReruns) {

  /** The store's key. Not a record component: those would carry the index twice (field, method). */
  @KVIndex
  public int key() {
    return shuffleId;
  }
}
