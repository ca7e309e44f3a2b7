package io.sluice.client.spark;

import java.util.List;
import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * Partitions of a shuffle moved to new servers while the shuffle was written, because a push could
 * not be placed where they were (the server was lost, full, draining, or could not reach its
 * replica). Posted by the driver to Spark's listener bus, so the event log keeps it (see {@link
 * SluiceShuffleEvent} for how Spark logs events of its own kind).
 *
 * @param partitions how many partitions moved
 * @param servers the servers they moved to, as {@code id@host:port}
 * @param reason what the writer met
 */
public record SluiceRelocationEvent(
    int shuffleId, int partitions, List<String> servers, String reason)
    implements SparkListenerEvent {}
