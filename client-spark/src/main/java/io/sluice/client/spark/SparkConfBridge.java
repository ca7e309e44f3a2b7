package io.sluice.client.spark;

import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/**
 * Reads Sluice's settings out of a SparkConf: {@code spark.sluice.*} keys of the client, and the
 * transport keys with the {@code spark.sluice.} prefix. A misspelt {@code spark.sluice.} key fails
 * with the registry's usual message naming the key.
 */
final class SparkConfBridge {
  static final String PREFIX = "spark.sluice.";

  private SparkConfBridge() {}

  static SluiceConf toSluiceConf(SparkConf sparkConf) {
    List<ConfigOptionSet> sets = List.of(new SluiceClientOptions(), new TransportOptions());
    java.util.Set<String> clientKeys = new java.util.HashSet<>();
    for (var o : new SluiceClientOptions().options()) {
      clientKeys.add(o.key());
    }
    Map<String, String> raw = new HashMap<>();
    for (Tuple2<String, String> entry : sparkConf.getAll()) {
      String key = entry._1();
      if (!key.startsWith(PREFIX)) {
        continue;
      }
      String stripped = key.substring(PREFIX.length());
      raw.put(
          clientKeys.contains(key) || !stripped.startsWith("transport.") ? key : stripped,
          entry._2());
    }
    return ConfigLoader.fromMap(raw, sets);
  }
}
