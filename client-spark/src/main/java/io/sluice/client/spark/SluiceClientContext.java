package io.sluice.client.spark;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.client.core.BlockCipher;
import io.sluice.client.core.codec.CodecKind;
import io.sluice.client.core.codec.CompressionCodec;
import io.sluice.client.core.codec.CompressionCodecs;
import io.sluice.client.core.codec.Lz4Codec;
import io.sluice.client.core.push.PushPace;
import io.sluice.client.core.push.PushSettings;
import io.sluice.client.core.read.FetchSettings;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.shuffle.Backoff;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.NettyTransports;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import scala.Option;

/**
 * What every task of a JVM shares: one connection pool to the servers, one allocator, one timer for
 * retries, the codec and the settings. Created by the first {@link SluiceShuffleManager} of the
 * JVM, closed when the last one stops.
 */
public final class SluiceClientContext {
  private static final String IO_ENCRYPTION = "spark.io.encryption.enabled";
  private static SluiceClientContext shared;
  private static int users;

  private final SluiceConf conf;
  private final PooledByteBufAllocator allocator;
  private final TransportClientFactory clients;
  private final ScheduledExecutorService scheduler;
  private final CompressionCodec codec;
  private final PushSettings pushSettings;
  private final PushPace pushPace;
  private final FetchSettings fetchSettings;
  private final Map<Integer, DriverLocator> locators = new ConcurrentHashMap<>();
  private final boolean ioEncryption;
  private volatile BlockCipher blockCipher;

  private SluiceClientContext(
      SluiceConf conf, CompressionCodec codec, String id, boolean ioEncryption) {
    this.conf = conf;
    this.ioEncryption = ioEncryption;
    this.allocator =
        NettyTransports.pooledAllocator(Math.max(2, Runtime.getRuntime().availableProcessors()));
    this.clients =
        new TransportContext(new TransportConf(conf), id, allocator).createClientFactory();
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-client-timer");
              t.setDaemon(true);
              return t;
            });
    this.codec = codec;
    Duration wait = conf.get(SluiceClientOptions.RETRY_WAIT);
    Duration maxWait =
        wait.compareTo(Backoff.DEFAULT_MAX_WAIT) > 0 ? wait : Backoff.DEFAULT_MAX_WAIT;
    long batch = conf.get(SluiceClientOptions.PUSH_BATCH_SIZE);
    this.pushSettings =
        new PushSettings(
            batch,
            Math.max(batch, conf.get(SluiceClientOptions.PUSH_MAX_IN_FLIGHT)),
            new Backoff(wait, maxWait, conf.get(SluiceClientOptions.PUSH_RETRIES)),
            conf.get(SluiceClientOptions.PUSH_MAX_RELOCATIONS));
    this.pushPace = new PushPace(conf.get(SluiceClientOptions.PUSH_SLOW_RATIO));
    this.fetchSettings =
        FetchSettings.of(
            conf.get(SluiceClientOptions.FETCH_MAX_IN_FLIGHT),
            conf.get(SluiceClientOptions.FETCH_MAX_REQUEST),
            new TransportConf(conf).maxFrameSize(),
            new Backoff(wait, maxWait, conf.get(SluiceClientOptions.FETCH_RETRIES)));
  }

  /** The JVM's context, created on first use; pair every call with {@link #release()}. */
  static synchronized SluiceClientContext acquire(SparkConf sparkConf) {
    if (shared == null) {
      SluiceConf conf = SparkConfBridge.toSluiceConf(sparkConf);
      shared =
          new SluiceClientContext(
              conf,
              codec(conf, sparkConf),
              "spark-" + sparkConf.get("spark.executor.id", "driver"),
              sparkConf.getBoolean(IO_ENCRYPTION, false));
    }
    users++;
    return shared;
  }

  /** Drops one user; the last closes the connections and threads. */
  static synchronized void release() {
    if (--users == 0 && shared != null) {
      shared.clients.close();
      shared.scheduler.shutdownNow();
      shared = null;
    }
  }

  /**
   * The block codec, with Spark's own settings for it: zstd's level, and lz4's chunk size, in which
   * the sizes reported to Spark are those of its sort shuffle ({@link SortShuffleSizes}).
   */
  private static CompressionCodec codec(SluiceConf conf, SparkConf sparkConf) {
    long chunk = sparkConf.getSizeAsBytes(LZ4_BLOCK_SIZE, "32k");
    if (chunk < Lz4Codec.MIN_CHUNK_SIZE || chunk > Lz4Codec.MAX_CHUNK_SIZE) {
      throw new IllegalArgumentException(
          LZ4_BLOCK_SIZE
              + " is "
              + chunk
              + " bytes; set it to "
              + "between "
              + Lz4Codec.MIN_CHUNK_SIZE
              + " bytes and 32m");
    }
    return CompressionCodecs.create(
        codecKind(conf, sparkConf),
        sparkConf.getInt("spark.io.compression.zstd.level", 1),
        (int) chunk);
  }

  private static final String LZ4_BLOCK_SIZE = "spark.io.compression.lz4.blockSize";

  private static CodecKind codecKind(SluiceConf conf, SparkConf sparkConf) {
    String configured = conf.get(SluiceClientOptions.CODEC);
    if (!"auto".equals(configured)) {
      return CodecKind.forName(configured);
    }
    if (!sparkConf.getBoolean("spark.shuffle.compress", true)) {
      return CodecKind.NONE;
    }
    return "zstd".equalsIgnoreCase(sparkConf.get("spark.io.compression.codec", "lz4"))
        ? CodecKind.ZSTD
        : CodecKind.LZ4;
  }

  public SluiceConf conf() {
    return conf;
  }

  public PooledByteBufAllocator allocator() {
    return allocator;
  }

  public TransportClientFactory clients() {
    return clients;
  }

  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  public CompressionCodec codec() {
    return codec;
  }

  /** The sizes Spark's sort shuffle would count for this application's blocks. */
  public SortShuffleSizes sortShuffleSizes() {
    return new SortShuffleSizes(codec, ioEncryption);
  }

  /** How map tasks push, from the client's settings. */
  public PushSettings pushSettings() {
    return pushSettings;
  }

  /** How fast this JVM's pushes are acknowledged, by server: shared by its writers. */
  public PushPace pushPace() {
    return pushPace;
  }

  /** How reduce tasks fetch, from the client's settings. */
  public FetchSettings fetchSettings() {
    return fetchSettings;
  }

  /**
   * The cipher of the application's blocks when Spark encrypts its I/O ({@code
   * spark.io.encryption.enabled}): Sluice then encrypts every block with Spark's I/O key before it
   * leaves the executor, so that servers never hold plaintext. Null otherwise.
   */
  public BlockCipher blockCipher() {
    if (!ioEncryption) {
      return null;
    }
    BlockCipher cipher = blockCipher;
    if (cipher == null) {
      // Spark hands the key to the driver and to every executor; SparkEnv holds it by the time
      // tasks run.
      Option<byte[]> key = SparkEnv.get().securityManager().getIOEncryptionKey();
      if (key.isEmpty()) {
        throw new IllegalStateException(
            IO_ENCRYPTION + " is true but Spark has no I/O " + "encryption key in this JVM");
      }
      cipher = new BlockCipher(key.get());
      blockCipher = cipher;
    }
    return cipher;
  }

  /** This JVM's view of a shuffle's locations, shared by its tasks. */
  DriverLocator locator(SluiceShuffleHandle<?, ?, ?> handle) {
    return locators.computeIfAbsent(
        handle.shuffleId(), id -> new DriverLocator(handle, connections(handle)));
  }

  /**
   * The pooled connections a task of the handle's application uses: authenticated as the
   * application when the cluster authenticates.
   */
  public Connections connections(SluiceShuffleHandle<?, ?, ?> handle) {
    return handle.auth().enabled()
        ? clients.as(handle.auth().credentials(handle.appId()))
        : clients;
  }

  /** Forgets a shuffle Spark unregistered. */
  void forget(int shuffleId) {
    locators.remove(shuffleId);
  }
}
