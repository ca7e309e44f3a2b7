package io.sluice.it;

import io.sluice.testcluster.MiniCluster;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** Local Spark sessions for the same job with Spark's built-in shuffle or with Sluice. */
final class SparkSessions {
  static final String MANAGER = "io.sluice.client.spark.SluiceShuffleManager";

  private SparkSessions() {}

  static SparkConf base(String master, String appName) {
    return new SparkConf()
        .setMaster(master)
        .setAppName(appName)
        .set("spark.ui.enabled", "false")
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.sql.shuffle.partitions", "8")
        .set("spark.default.parallelism", "4")
        .set("spark.shuffle.push.enabled", "false");
  }

  static SparkConf withSluice(SparkConf conf, MiniCluster cluster) {
    return withSluice(conf, cluster.coordinatorAddress());
  }

  static SparkConf withSluice(SparkConf conf, String coordinators) {
    return conf.set("spark.shuffle.manager", MANAGER)
        .set("spark.sluice.coordinators", coordinators)
        .set("spark.sluice.fallback.enabled", "false");
  }

  static SparkSession start(SparkConf conf, Map<String, String> extra) {
    extra.forEach(conf::set);
    return SparkSession.builder().config(conf).getOrCreate();
  }
}
