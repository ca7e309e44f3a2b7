package io.sluice.client.spark;

import io.sluice.client.core.push.PushPace;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.SluiceConf;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the Spark plugin, set like any Spark property ({@code --conf}, spark-defaults.conf).
 * The transport settings apply too, with the {@code spark.sluice.} prefix (e.g. {@code
 * spark.sluice.transport.connections.per.peer}).
 */
public final class SluiceClientOptions implements ConfigOptionSet {

  public static final ConfigOption<List<String>> COORDINATORS =
      ConfigOption.list("spark.sluice.coordinators")
          .noDefault()
          .doc("Coordinators as `host:port,host:port`, tried in order. Required.")
          .build();

  public static final ConfigOption<Long> BLOCK_SIZE =
      ConfigOption.bytes("spark.sluice.block.size")
          .defaultValue("256k")
          .min(4 * 1024L)
          .max(64L << 20)
          .doc(
              "Serialized bytes of one partition a map task collects before it compresses them "
                  + "into a block. Larger blocks compress better; every partition of a running task may "
                  + "hold one block's worth in memory.")
          .build();

  public static final ConfigOption<Long> PUSH_BATCH_SIZE =
      ConfigOption.bytes("spark.sluice.push.batch.size")
          .defaultValue("2m")
          .min(64 * 1024L)
          .max(32L << 20)
          .doc(
              "Blocks bound for one chain of servers (a primary and its replicas) are packed "
                  + "into pushes of about this size.")
          .build();

  public static final ConfigOption<Long> PUSH_MAX_IN_FLIGHT =
      ConfigOption.bytes("spark.sluice.push.max.in.flight")
          .defaultValue("32m")
          .min(256 * 1024L)
          .doc(
              "Bytes of compressed blocks one map task holds, batched for a server or pushed and "
                  + "not yet acknowledged, however many servers it writes to; the task waits when it "
                  + "would pass this. At least `"
                  + PUSH_BATCH_SIZE.key()
                  + "`.")
          .build();

  // Declared before the options whose docs name its key.
  public static final ConfigOption<Duration> RETRY_WAIT =
      ConfigOption.duration("spark.sluice.retry.wait")
          .defaultValue("50ms")
          .min(1)
          .doc("First back-off of a retriable failure; it doubles on each retry, up to 2 s.")
          .build();

  public static final ConfigOption<Integer> PUSH_RETRIES =
      ConfigOption.integer("spark.sluice.push.retries")
          .defaultValue("20")
          .min(0)
          .doc(
              "Retries of a push the server refused with a retriable status (memory full, busy), "
                  + "with exponential back-off from `"
                  + RETRY_WAIT.key()
                  + "`.")
          .build();

  public static final ConfigOption<Integer> PUSH_MAX_RELOCATIONS =
      ConfigOption.integer("spark.sluice.push.max.relocations")
          .defaultValue("4")
          .min(0)
          .doc(
              "How many times the blocks of one push may move to a new location after the old one "
                  + "failed (server lost, restarted, draining, replica unreachable) before the task "
                  + "fails.")
          .build();

  public static final ConfigOption<Integer> PUSH_SLOW_RATIO =
      ConfigOption.integer("spark.sluice.push.slow.ratio")
          .defaultValue(String.valueOf(PushPace.DEFAULT_SLOW_RATIO))
          .min(0)
          .doc(
              "An executor measures the pace of its full pushes (bytes acknowledged per second "
                  + "of pushing) by the chain of servers they go to. A chain slower than the "
                  + "servers' median pace divided by this, over at least 300 ms of pushing (while "
                  + "nothing was acknowledged: as long as that pace takes for 256 KiB, and 1.2 s "
                  + "at least), makes its servers that are in no healthy chain slow: the "
                  + "executor's writers move the partitions located on them, in every shuffle "
                  + "they write, to other servers through the driver, keeping there what they "
                  + "took. A server found slow alone (not only as one of a chain) sets no median "
                  + "and is not read first by the executor's reduce tasks for a minute after the "
                  + "last finding, nor by any reduce task reading a map output the executor wrote "
                  + "within that minute: with 2 copies they read what it took from the replicas. "
                  + "The figures fade by half every 10 s, so that a server no longer pushed to is "
                  + "judged again later. 0 moves from no slow server.")
          .build();

  public static final ConfigOption<Integer> FETCH_RETRIES =
      ConfigOption.integer("spark.sluice.fetch.retries")
          .defaultValue("10")
          .min(0)
          .doc(
              "Retries of a read the server refused with a retriable status (read memory busy), "
                  + "with exponential back-off from `"
                  + RETRY_WAIT.key()
                  + "`. A server that fails "
                  + "otherwise is not retried: the reader moves to the partition's replica.")
          .build();

  public static final ConfigOption<String> CODEC =
      ConfigOption.string("spark.sluice.codec")
          .defaultValue("auto")
          .validate(
              v -> List.of("auto", "lz4", "zstd", "none").contains(v),
              "must be one of auto, lz4, zstd, none")
          .doc(
              "Block compression. `auto` follows Spark: none when `spark.shuffle.compress` is "
                  + "false, zstd when `spark.io.compression.codec` is zstd, lz4 otherwise.")
          .build();

  public static final ConfigOption<Long> FETCH_MAX_IN_FLIGHT =
      ConfigOption.bytes("spark.sluice.fetch.max.in.flight")
          .defaultValue("48m")
          .min(1L << 20)
          .doc("Bytes a reduce task may have requested from servers and not yet consumed.")
          .build();

  public static final ConfigOption<Long> FETCH_MAX_REQUEST =
      ConfigOption.bytes("spark.sluice.fetch.max.request")
          .defaultValue("8m")
          .min(64 * 1024L)
          .doc(
              "Largest single read request; blocks next to each other on disk (or apart by the "
                  + "few zero bytes a server may leave before a block, docs/protocol.md) are read "
                  + "together up to this.")
          .build();

  public static final ConfigOption<Boolean> FALLBACK =
      ConfigOption.bool("spark.sluice.fallback.enabled")
          .defaultValue("true")
          .doc(
              "When the coordinator has no servers to offer, run the shuffle with Spark's sort "
                  + "shuffle (with a warning) instead of failing the job.")
          .build();

  public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
      ConfigOption.duration("spark.sluice.heartbeat.interval")
          .defaultValue("10s")
          .min(100)
          .doc("How often the driver tells coordinators and servers that the application lives.")
          .build();

  public static final ConfigOption<Integer> REPLICAS =
      ConfigOption.integer("spark.sluice.replicas")
          .defaultValue("1")
          .min(1)
          .max(3)
          .doc(
              "Copies of each partition, each on a different server (and host, where there are "
                  + "enough). With 2 or more, a map task pushes each block once, to the partition's "
                  + "primary, which forwards it along the chain and acknowledges only when every copy "
                  + "holds it; losing a server then re-runs no stage. The coordinator caps it at "
                  + "`coordinator.assignment.max.replicas`.")
          .build();

  public static final ConfigOption<List<String>> SERVER_TAGS =
      ConfigOption.list("spark.sluice.server.tags")
          .defaultValue("")
          .doc(
              "Only servers carrying all these tags (`server.tags`) take the application's "
                  + "shuffles; empty for any server.")
          .build();

  public static final ConfigOption<Integer> DRIVER_PORT =
      ConfigOption.integer("spark.sluice.driver.port")
          .defaultValue("0")
          .min(0)
          .max(65535)
          .doc(
              "Port of the driver's Sluice endpoint, which executors ask for partition locations; "
                  + "0 picks a free port. It listens on `spark.driver.bindAddress` and is reached at "
                  + "`spark.driver.host`.")
          .build();

  public static final ConfigOption<Duration> CALL_TIMEOUT =
      ConfigOption.duration("spark.sluice.call.timeout")
          .defaultValue("30s")
          .min(100)
          .doc(
              "How long the driver waits for a coordinator or server to answer a control call "
                  + "(registration, heart-beat, relocation, deletion).")
          .build();

  public static final ConfigOption<Boolean> AUTH_ENABLED =
      ConfigOption.bool("spark.sluice.auth.enabled")
          .defaultValue("false")
          .doc(
              "Authenticate with the Sluice cluster (its daemons run with `auth.enabled`): the "
                  + "driver proves the cluster secret and gives the servers a secret of this "
                  + "application, which executors prove and which confines them to its data. The "
                  + "application's secret is derived from Spark's own when `spark.authenticate` is "
                  + "on, and random otherwise (it then travels to executors in the shuffle handle).")
          .build();

  public static final ConfigOption<String> AUTH_CLUSTER_SECRET_FILE =
      ConfigOption.string("spark.sluice.auth.cluster.secret.file")
          .noDefault()
          .doc(
              "File holding the cluster secret, read by the driver only (executors never need "
                  + "it). Required when `spark.sluice.auth.enabled` is true.")
          .build();

  private static final List<ConfigOption<?>> ALL =
      List.of(
          COORDINATORS,
          BLOCK_SIZE,
          PUSH_BATCH_SIZE,
          PUSH_MAX_IN_FLIGHT,
          PUSH_RETRIES,
          PUSH_MAX_RELOCATIONS,
          PUSH_SLOW_RATIO,
          FETCH_RETRIES,
          RETRY_WAIT,
          CODEC,
          FETCH_MAX_IN_FLIGHT,
          FETCH_MAX_REQUEST,
          FALLBACK,
          HEARTBEAT_INTERVAL,
          REPLICAS,
          SERVER_TAGS,
          DRIVER_PORT,
          CALL_TIMEOUT,
          AUTH_ENABLED,
          AUTH_CLUSTER_SECRET_FILE);

  @Override
  public String title() {
    return "Spark client (spark.sluice.*)";
  }

  @Override
  public String description() {
    return "Spark properties read by `io.sluice.client.spark.SluiceShuffleManager`. The transport "
        + "settings above apply to the client too, prefixed with `spark.sluice.`.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return ALL;
  }

  @Override
  public void validate(SluiceConf conf) {
    if (conf.get(AUTH_ENABLED) && !conf.isSet(AUTH_CLUSTER_SECRET_FILE)) {
      throw new ConfigException(
          "'"
              + AUTH_ENABLED.key()
              + "' is true but '"
              + AUTH_CLUSTER_SECRET_FILE.key()
              + "' is not set: name the file holding the cluster "
              + "secret");
    }
  }
}
