package io.sluice.client.spark.ui;

import io.sluice.client.spark.ShuffleCounters;
import io.sluice.client.spark.SluiceRelocationEvent;
import io.sluice.client.spark.SluiceShuffleEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.FetchFailed;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.util.kvstore.KVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds each shuffle's {@link ShuffleSummary} from Spark's listener events, live on the driver or
 * replayed from the event log in the history server, and keeps it in the status store: Sluice's own
 * events (the shuffle's registration or fallback, each move of partitions), the tasks' counts in
 * the shuffle's accumulators, fetch failures, and attempts of the shuffle's map stage.
 *
 * <p>Events arrive on one listener-bus thread.
 */
public final class ShuffleSummaryListener extends SparkListener {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleSummaryListener.class);

  private final KVStore store;
  private final Map<Integer, Tally> shuffles = new HashMap<>();

  /** The shuffle and counter name of each Sluice accumulator. */
  private final Map<Long, Counted> accumulators = new HashMap<>();

  public ShuffleSummaryListener(KVStore store) {
    this.store = store;
  }

  @Override
  public void onOtherEvent(SparkListenerEvent event) {
    if (event instanceof SluiceShuffleEvent e) {
      Tally t = new Tally(e);
      shuffles.put(e.shuffleId(), t);
      if (e.counters() != null) {
        e.counters().forEach((name, id) -> accumulators.put(id, new Counted(t, name)));
      }
      write(t);
    } else if (event instanceof SluiceRelocationEvent e) {
      Tally t = shuffles.get(e.shuffleId());
      if (t != null) {
        t.relocations++;
        t.relocatedPartitions += e.partitions();
        t.servers.addAll(e.servers());
        write(t);
      }
    }
  }

  @Override
  public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
    scala.Option<Object> shuffleId = submitted.stageInfo().shuffleDepId();
    if (shuffleId.isDefined() && submitted.stageInfo().attemptNumber() > 0) {
      Tally t = shuffles.get((Integer) shuffleId.get());
      if (t != null) {
        t.mapStageReruns++;
        write(t);
      }
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    List<Tally> changed = new ArrayList<>();
    if (end.reason() instanceof FetchFailed failed) {
      Tally t = shuffles.get(failed.shuffleId());
      if (t != null) {
        t.fetchFailures++;
        changed.add(t);
      }
    }
    if (!accumulators.isEmpty() && end.taskInfo() != null) {
      var infos = end.taskInfo().accumulables().iterator();
      while (infos.hasNext()) {
        AccumulableInfo info = infos.next();
        Counted counted = accumulators.get(info.id());
        if (counted != null && info.update().isDefined()) {
          counted.tally.add(counted.name, update(info.update().get()));
          if (!changed.contains(counted.tally)) {
            changed.add(counted.tally);
          }
        }
      }
    }
    changed.forEach(this::write);
  }

  /** A task's update: a Long live, its text when replayed from the event log. */
  private static long update(Object value) {
    return value instanceof Number n ? n.longValue() : Long.parseLong(value.toString());
  }

  private void write(Tally t) {
    try {
      store.write(t.summary());
    } catch (Exception e) {
      LOG.warn("Cannot keep the Sluice summary of shuffle {}: {}", t.shuffleId, e.toString());
    }
  }

  private record Counted(Tally tally, String name) {}

  /** A shuffle's counts so far. */
  private static final class Tally {
    final int shuffleId;
    final int partitions;
    final boolean sluice;
    final int copies;
    final Set<String> servers;
    final String fallbackReason;
    long bytesPushed;
    long bytesRead;
    long pushRetries;
    long fetchRetries;
    long replicaReads;
    int relocations;
    int relocatedPartitions;
    int fetchFailures;
    int mapStageReruns;

    Tally(SluiceShuffleEvent e) {
      shuffleId = e.shuffleId();
      partitions = e.partitions();
      sluice = e.sluice();
      copies = e.copies();
      servers = new LinkedHashSet<>(e.servers() == null ? List.of() : e.servers());
      fallbackReason = e.fallbackReason();
    }

    void add(String counter, long n) {
      switch (counter) {
        case ShuffleCounters.BYTES_PUSHED -> bytesPushed += n;
        case ShuffleCounters.BYTES_READ -> bytesRead += n;
        case ShuffleCounters.PUSH_RETRIES -> pushRetries += n;
        case ShuffleCounters.FETCH_RETRIES -> fetchRetries += n;
        case ShuffleCounters.REPLICA_READS -> replicaReads += n;
        default -> {} // a counter of a later client: not shown
      }
    }

    ShuffleSummary summary() {
      return new ShuffleSummary(
          shuffleId,
          partitions,
          sluice,
          copies,
          List.copyOf(servers),
          fallbackReason,
          bytesPushed,
          bytesRead,
          pushRetries,
          fetchRetries,
          replicaReads,
          relocations,
          relocatedPartitions,
          fetchFailures,
          mapStageReruns);
    }
  }
}
