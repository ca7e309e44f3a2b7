package io.sluice.common.config;

import java.time.Duration;
import java.util.List;

/**
 * A test-only option set with an option of every kind, limits, a validator and a cross-option
 * check.
 */
public final class TestServerOptions implements ConfigOptionSet {
  public enum IoMode {
    AUTO,
    EPOLL,
    NIO
  }

  public static final String TITLE = "Test server (conf/test.conf)";

  public static final ConfigOption<Long> BUFFER_CAPACITY =
      ConfigOption.bytes("buffer.capacity")
          .defaultValue("64m")
          .doc("Memory for pushed data.")
          .build();

  public static final ConfigOption<Long> READ_BUFFER_CAPACITY =
      ConfigOption.bytes("read.buffer.capacity")
          .defaultValue("32m")
          .min(1 << 20)
          .max(1L << 40)
          .doc("Memory for data being read.")
          .build();

  public static final ConfigOption<Duration> FLUSH_TIMEOUT =
      ConfigOption.duration("flush.timeout")
          .defaultValue("30s")
          .min(1)
          .max(3_600_000)
          .doc("How long a flush may take.")
          .build();

  public static final ConfigOption<Integer> FLUSH_THREADS =
      ConfigOption.integer("flush.threads")
          .defaultValue("2")
          .min(1)
          .max(64)
          .doc("Flush threads per disk.")
          .build();

  public static final ConfigOption<Integer> RING_SIZE =
      ConfigOption.integer("ring.size")
          .defaultValue("1024")
          .min(1)
          .validate(n -> Integer.bitCount(n) == 1, "must be a power of two")
          .doc("Slots in the ring.")
          .build();

  public static final ConfigOption<Long> MAX_BLOCKS =
      ConfigOption.longValue("max.blocks")
          .defaultValue("10000000000")
          .doc("Blocks per application.")
          .build();

  public static final ConfigOption<Double> HIGH_WATERMARK =
      ConfigOption.doubleValue("memory.high-watermark")
          .defaultValue("0.8")
          .min(0.0)
          .max(1.0)
          .doc("Stop accepting pushes above this share of buffer.capacity.")
          .build();

  public static final ConfigOption<Double> LOW_WATERMARK =
      ConfigOption.doubleValue("memory.low-watermark")
          .defaultValue("0.6")
          .min(0.0)
          .max(1.0)
          .doc("Accept pushes again below this share of buffer.capacity.")
          .build();

  public static final ConfigOption<Boolean> TLS_ENABLED =
      ConfigOption.bool("tls.enabled")
          .defaultValue("false")
          .doc("Encrypt every connection.")
          .build();

  public static final ConfigOption<String> CLUSTER_NAME =
      ConfigOption.string("cluster.name")
          .defaultValue("")
          .doc("A name for logs and metrics.")
          .build();

  public static final ConfigOption<List<String>> STORAGE_DIRS =
      ConfigOption.list("storage.dirs")
          .defaultValue("/tmp/sluice-a, /tmp/sluice-b")
          .doc("Directories for shuffle files, one per disk.")
          .build();

  public static final ConfigOption<IoMode> IO_MODE =
      ConfigOption.enumValue("io.mode", IoMode.class)
          .defaultValue("auto")
          .since("0.2.0")
          .doc("Netty transport: auto picks epoll where it is available.")
          .build();

  @Override
  public String title() {
    return TITLE;
  }

  @Override
  public String description() {
    return "Options of a made-up server, for tests.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return List.of(
        BUFFER_CAPACITY,
        READ_BUFFER_CAPACITY,
        FLUSH_TIMEOUT,
        FLUSH_THREADS,
        RING_SIZE,
        MAX_BLOCKS,
        HIGH_WATERMARK,
        LOW_WATERMARK,
        TLS_ENABLED,
        CLUSTER_NAME,
        STORAGE_DIRS,
        IO_MODE);
  }

  @Override
  public void validate(SluiceConf conf) {
    double low = conf.get(LOW_WATERMARK);
    double high = conf.get(HIGH_WATERMARK);
    if (low >= high) {
      throw new ConfigException(
          "'"
              + LOW_WATERMARK.key()
              + "' ("
              + low
              + ") must be below '"
              + HIGH_WATERMARK.key()
              + "' ("
              + high
              + ").");
    }
  }
}
