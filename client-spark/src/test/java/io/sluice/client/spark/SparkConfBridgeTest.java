package io.sluice.client.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.ConfigException;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import java.time.Duration;
import java.util.List;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** Sluice's settings as a Spark application writes them, read out of its SparkConf. */
class SparkConfBridgeTest {

  @Test
  void clientKeysAreReadAsTheyAreWritten() {
    SluiceConf conf =
        SparkConfBridge.toSluiceConf(
            new SparkConf(false)
                .set("spark.sluice.coordinators", "c1:19999,c2:19999")
                .set("spark.sluice.block.size", "256k")
                .set("spark.sluice.replicas", "2"));

    assertEquals(List.of("c1:19999", "c2:19999"), conf.get(SluiceClientOptions.COORDINATORS));
    assertEquals(256 * 1024L, conf.get(SluiceClientOptions.BLOCK_SIZE));
    assertEquals(2, conf.get(SluiceClientOptions.REPLICAS));
  }

  @Test
  void transportKeysTakeTheSparkSluicePrefix() {
    SluiceConf conf =
        SparkConfBridge.toSluiceConf(
            new SparkConf(false)
                .set("spark.sluice.transport.connect.timeout", "3s")
                .set("spark.sluice.transport.connections.per.peer", "4"));

    assertEquals(Duration.ofSeconds(3), conf.get(TransportOptions.CONNECT_TIMEOUT));
    assertEquals(4, conf.get(TransportOptions.CONNECTIONS_PER_PEER));
  }

  @Test
  void otherSparkSettingsAreNotSluices() {
    SluiceConf conf =
        SparkConfBridge.toSluiceConf(
            new SparkConf(false)
                .set("spark.shuffle.compress", "false")
                .set("spark.executor.memory", "4g"));

    assertEquals(
        SluiceConf.empty().get(SluiceClientOptions.BLOCK_SIZE),
        conf.get(SluiceClientOptions.BLOCK_SIZE));
    assertFalse(conf.isSet(SluiceClientOptions.BLOCK_SIZE));
  }

  @Test
  void aMisspeltKeyFailsNamingIt() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                SparkConfBridge.toSluiceConf(
                    new SparkConf(false).set("spark.sluice.block.sise", "1m")));
    assertTrue(e.getMessage().contains("spark.sluice.block.sise"), e.getMessage());
  }

  @Test
  void aBadValueFailsNamingTheKeyAsTheUserWroteIt() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                SparkConfBridge.toSluiceConf(
                    new SparkConf(false).set("spark.sluice.transport.connect.timeout", "soon")));
    assertTrue(e.getMessage().contains("transport.connect.timeout"), e.getMessage());
  }
}
