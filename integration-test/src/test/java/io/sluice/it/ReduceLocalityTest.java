package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testcluster.MiniCluster;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.spark.Partition;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;
import scala.collection.JavaConverters;

/**
 * Spark's delay scheduling and the hosts of Sluice's map outputs: a task set where one task prefers
 * an executor (a cached partition) and another reads a shuffle. Spark holds the shuffle read back
 * while its preferred hosts have pending work, for {@code spark.locality.wait}; a preferred host
 * without executors is never satisfied, and in local mode, where no later resource offer comes, the
 * job waits for ever (Spark's own AdaptiveQueryExecSuite, SPARK-42101, hung that way). Here the
 * wait is ten minutes, so a shuffle read preferring a host where nothing runs fails the test by its
 * timeout; and the shuffle reads' preferred locations are asserted to be executor hosts, as the
 * built-in shuffle's are.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ReduceLocalityTest {
  private static final String LONG_WAIT = "10min";
  private static MiniCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = new MiniCluster(2, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  /** The shape of SPARK-42101: a shuffle read beside a cached relation, under AQE, local[2]. */
  @Test
  void aShuffleReadUnionedWithACachedRelationRunsInLocalMode() {
    SparkConf conf =
        SparkSessions.withSluice(SparkSessions.base("local[2]", "locality-local"), cluster)
            .set("spark.locality.wait", LONG_WAIT)
            .set("spark.sql.adaptive.enabled", "true")
            .set("spark.sql.optimizer.canChangeCachedPlanOutputPartitioning", "true")
            .set("spark.sql.adaptive.coalescePartitions.minPartitionNum", "1");
    SparkSession spark = SparkSessions.start(conf, Map.of());
    try {
      long pushedBefore = cluster.pushedBytes();
      Dataset<Row> cached = spark.range(0, 1000).toDF("c").cache();
      cached.count();
      Dataset<Row> df =
          spark.range(1000, 3000).toDF("c").repartition(functions.col("c")).unionAll(cached);

      assertEquals(3000, df.collectAsList().size());
      assertTrue(cluster.pushedBytes() > pushedBefore, "the repartition went through Sluice");
      SparkPlan plan = ((AdaptiveSparkPlanExec) df.queryExecution().executedPlan()).executedPlan();
      List<AQEShuffleReadExec> reads = new ArrayList<>();
      collectReads(plan, reads);
      assertEquals(1, reads.size(), plan.treeString());
      assertPreferredHostsRunExecutors(spark, reads.get(0).execute());
    } finally {
      spark.stop();
    }
  }

  /** The same in executors of their own JVMs, whose scheduler offers resources every second. */
  @Test
  void aShuffleReadUnionedWithACachedRddRunsInALocalCluster() throws Exception {
    String classPath = Artifacts.shadedClientJar() + ":" + Artifacts.testClasses();
    SparkConf conf =
        SparkSessions.withSluice(
                SparkSessions.base("local-cluster[2,1,1024]", "locality-local-cluster"), cluster)
            .set("spark.executor.extraClassPath", classPath)
            .set("spark.executor.memory", "512m")
            .set("spark.locality.wait", LONG_WAIT);
    SparkSession spark = SparkSessions.start(conf, Map.of());
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> numbers = new ArrayList<>();
      for (int i = 0; i < 4000; i++) {
        numbers.add(i);
      }
      JavaRDD<Integer> cached = sc.parallelize(numbers, 4).cache();
      assertEquals(4000, cached.count());
      JavaPairRDD<Integer, Integer> counts =
          sc.parallelize(numbers, 4)
              .mapToPair(n -> new Tuple2<>(n % 10, 1))
              .reduceByKey(Integer::sum, 3);
      JavaRDD<Integer> reduced = counts.map(Tuple2::_2);

      List<Integer> union = cached.union(reduced).collect();

      assertEquals(4010, union.size());
      assertEquals(4000, union.subList(4000, 4010).stream().mapToInt(i -> i).sum());
      assertPreferredHostsRunExecutors(spark, counts.rdd());
      assertTrue(cluster.pushedBytes() > 0, "the executors pushed through Sluice");
    } finally {
      spark.stop();
    }
  }

  private static void collectReads(SparkPlan plan, List<AQEShuffleReadExec> out) {
    if (plan instanceof AQEShuffleReadExec read) {
      out.add(read);
    }
    for (SparkPlan child : JavaConverters.seqAsJavaList(plan.children())) {
      collectReads(child, out);
    }
  }

  /**
   * Every preferred location Spark computes for the shuffle read's partitions is a host where an
   * executor runs, and at least one partition has one, as with the built-in shuffle.
   */
  private static void assertPreferredHostsRunExecutors(SparkSession spark, RDD<?> read) {
    Set<String> executorHosts = new HashSet<>();
    for (SparkExecutorInfo executor : spark.sparkContext().statusTracker().getExecutorInfos()) {
      executorHosts.add(executor.host());
    }
    boolean anyPreference = false;
    for (Partition partition : read.partitions()) {
      List<String> hosts = JavaConverters.seqAsJavaList(read.preferredLocations(partition));
      for (String host : hosts) {
        assertTrue(
            executorHosts.contains(host),
            "partition "
                + partition.index()
                + " prefers "
                + host
                + ", where no executor runs ("
                + executorHosts
                + ")");
      }
      anyPreference |= !hosts.isEmpty();
    }
    assertTrue(anyPreference, "Spark's reduce-side locality should prefer the maps' hosts");
    assertFalse(executorHosts.isEmpty());
  }
}
