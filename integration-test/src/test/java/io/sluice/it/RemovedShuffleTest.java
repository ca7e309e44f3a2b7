package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MiniCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A shuffle whose data Spark removed while its dependency lives on, used again: what Spark 4.1's
 * SQL cleanup ({@code spark.sql.classic.shuffleDependency.fileCleanup.enabled}) does after every
 * SQL execution, here done through the same call ({@code BlockManagerMaster.removeShuffle}) on
 * Spark 3.5. Spark runs the map stage again with the same shuffle handle; its map tasks find the
 * servers no longer know the shuffle, and the driver revives it on newly registered servers. The
 * second action gives the first one's answer, with no failed task.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RemovedShuffleTest {

  @Test
  void aShuffleSparkRemovedRunsAgainWithItsHandle() throws Exception {
    try (MiniCluster cluster = new MiniCluster(2, Map.of())) {
      SparkSession spark =
          SparkSessions.start(
              SparkSessions.withSluice(SparkSessions.base("local[2]", "removed-shuffle"), cluster),
              Map.of());
      try {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        Counts counts = new Counts();
        sc.sc().addSparkListener(counts);
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
          numbers.add(i);
        }
        JavaPairRDD<Integer, Integer> sums =
            sc.parallelize(numbers, 4)
                .mapToPair(n -> new Tuple2<>(n % 7, n))
                .reduceByKey(Integer::sum, 3);
        int shuffleId = ((ShuffleDependency<?, ?, ?>) sums.rdd().dependencies().head()).shuffleId();

        List<Tuple2<Integer, Integer>> first = sums.sortByKey().collect();
        long pushedFirst = cluster.pushedBytes();
        SparkEnv.get().blockManager().master().removeShuffle(shuffleId, true);
        sc.sc().listenerBus().waitUntilEmpty();
        int mapStagesBefore = counts.mapStagesOf(shuffleId);
        List<Tuple2<Integer, Integer>> again = sums.sortByKey().collect();
        sc.sc().listenerBus().waitUntilEmpty();

        assertEquals(first, again);
        assertEquals(
            mapStagesBefore + 1,
            counts.mapStagesOf(shuffleId),
            "Spark ran the removed shuffle's map stage again");
        assertEquals(0, counts.failedTasks, "no task failed");
        assertTrue(cluster.pushedBytes() > pushedFirst, "the map stage pushed again");
      } finally {
        spark.stop();
      }
    }
  }

  /** Spark's view: map stages submitted per shuffle, and failed tasks. */
  private static final class Counts extends SparkListener {
    private final Map<Integer, Integer> mapStages = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile int failedTasks;

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted event) {
      if (event.stageInfo().shuffleDepId().isDefined()) {
        mapStages.merge((Integer) event.stageInfo().shuffleDepId().get(), 1, Integer::sum);
      }
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd event) {
      if (!event.taskInfo().successful()) {
        failedTasks++;
      }
    }

    int mapStagesOf(int shuffleId) {
      return mapStages.getOrDefault(shuffleId, 0);
    }
  }
}
