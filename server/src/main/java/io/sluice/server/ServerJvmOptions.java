package io.sluice.server;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import io.sluice.common.transport.TransportServer;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.storage.DirectAppender;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints the JVM options {@code bin/start-server.sh} starts the server with, so that the script
 * never parses sizes itself: direct memory is {@code buffer.capacity + read.buffer.capacity} plus
 * the push pool's alignment slack (4 KiB per MiB), the flush threads' staging buffers, a fixed
 * allowance for Netty's network pool derived from the transport's receive bounds (and one for
 * Hadoop's client with an HDFS tier); the heap, where no shuffle byte lives, holds a fixed base
 * plus the bookkeeping of the shuffle shape the configuration sizes it for ({@code
 * heap.commit.pairs}, {@code heap.blocks.in.memory}), unless the operator gives a size. Usage:
 * {@code ServerJvmOptions <server.conf> [heap size]}; {@code ServerJvmOptions --netty} prints only
 * {@link #NETTY_DIRECT_MEMORY}, for the benchmarks that run Sluice's transport in their own JVM.
 */
public final class ServerJvmOptions {
  /**
   * Network pool memory that no connection holds: chunks its arenas keep partly used and the caches
   * of its event-loop threads.
   */
  public static final long NETWORK_FIXED_BYTES = 32L << 20;

  /**
   * Direct memory Hadoop's client may hold per thread that reads or writes the HDFS tier: a packet
   * buffer of each block reader (64 KiB packets and their checksums) and what its pool keeps.
   */
  public static final long HDFS_BYTES_PER_THREAD = 1L << 20;

  /** Heap for a block held in the push pool: 121 bytes measured by BlockHeapTest, with room. */
  public static final long HEAP_BYTES_PER_BLOCK = 160;

  /**
   * Heap per hundred (map task, partition) pairs of committed counts: 128 measured by
   * CommitScaleTest, with room.
   */
  public static final long HEAP_BYTES_PER_100_COMMIT_PAIRS = 150;

  /**
   * Heap beside the shuffle bookkeeping: classes, the transport's and metrics' objects, the HDFS
   * client when there is one, registrations and partition states, and room for G1 to work in.
   */
  public static final long HEAP_BASE_BYTES = 256L << 20;

  /**
   * Lets Netty allocate direct memory without cleaners, counted against {@code
   * -XX:MaxDirectMemorySize}; without them it takes {@code ByteBuffer.allocateDirect}, which zeroes
   * every new chunk of its pools.
   */
  public static final List<String> NETTY_DIRECT_MEMORY =
      List.of(
          "-Dio.netty.tryReflectionSetAccessible=true",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED");

  private ServerJvmOptions() {}

  /** The heap {@code bin/start-server.sh} gives the server when no size is set, in whole MiB. */
  public static long heap(SluiceConf conf) {
    long bytes =
        HEAP_BASE_BYTES
            + conf.get(ServerOptions.HEAP_COMMIT_PAIRS) * HEAP_BYTES_PER_100_COMMIT_PAIRS / 100
            + PushBufferPool.maxBlocks(
                    conf.get(ServerOptions.BUFFER_CAPACITY),
                    conf.get(ServerOptions.HEAP_BLOCKS_IN_MEMORY))
                * HEAP_BYTES_PER_BLOCK;
    long mib = 1L << 20;
    return (bytes + mib - 1) / mib * mib;
  }

  public static long maxDirectMemory(SluiceConf conf) {
    long pushCapacity = conf.get(ServerOptions.BUFFER_CAPACITY);
    return pushCapacity
        + PushBufferPool.alignmentSlack(pushCapacity)
        + conf.get(ServerOptions.READ_BUFFER_CAPACITY)
        + networkAllowance(conf)
        + hdfsAllowance(conf)
        + flushStagingAllowance(conf);
  }

  /**
   * The flush threads' staging buffers for writes around the page cache (the last copies of replica
   * chains, {@code storage/DirectAppender}): one per thread, {@code flush.threads.per.disk} per
   * directory of {@code local.dirs}; none with {@code flush.direct} {@code none}.
   */
  public static long flushStagingAllowance(SluiceConf conf) {
    if (conf.get(ServerOptions.FLUSH_DIRECT) == ServerOptions.FlushDirect.NONE) {
      return 0;
    }
    return (long) conf.get(ServerOptions.LOCAL_DIRS).size()
        * conf.get(ServerOptions.FLUSH_THREADS_PER_DISK)
        * DirectAppender.STAGING_MEMORY_BYTES;
  }

  /**
   * Direct memory of Hadoop's client for the HDFS tier ({@code hdfs.dir}), 0 without one. Data read
   * from HDFS for readers is in buffers charged to {@code read.buffer.capacity}, not here.
   */
  public static long hdfsAllowance(SluiceConf conf) {
    if (conf.getOptional(ServerOptions.HDFS_DIR).isEmpty()) {
      return 0;
    }
    return (conf.get(ServerOptions.HDFS_READ_THREADS) + conf.get(ServerOptions.HDFS_FLUSH_THREADS))
        * HDFS_BYTES_PER_THREAD;
  }

  /**
   * The network pool's bound, whatever clients do: frames reserved from the receive budget, held in
   * buffers that a connection merges once they are a third empty (hence 1.5 times), what each
   * connection may hold beyond its reservation, and the pool's fixed overhead. See
   * docs/architecture.md.
   */
  public static long networkAllowance(SluiceConf conf) {
    long receive = conf.get(TransportOptions.RECEIVE_MEMORY);
    return receive
        + receive / 2
        + conf.get(TransportOptions.MAX_CONNECTIONS) * TransportServer.CONNECTION_OVERHEAD_BYTES
        + NETWORK_FIXED_BYTES;
  }

  public static void main(String[] args) {
    if (args.length == 1 && args[0].equals("--netty")) {
      System.out.println(String.join(" ", NETTY_DIRECT_MEMORY));
      return;
    }
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: ServerJvmOptions <server.conf> [heap size, e.g. 2g] | --netty");
      System.exit(2);
    }
    try {
      SluiceConf conf =
          ConfigLoader.load(Path.of(args[0]), Map.of(), ConfigDocGenerator.discover());
      String heap = args.length == 2 && !args[1].isEmpty() ? args[1] : String.valueOf(heap(conf));
      List<String> options = new ArrayList<>();
      options.add("-Xms" + heap);
      options.add("-Xmx" + heap);
      options.add("-XX:MaxDirectMemorySize=" + maxDirectMemory(conf));
      options.add("-XX:+UseG1GC");
      options.add("-XX:+ExitOnOutOfMemoryError");
      options.addAll(NETTY_DIRECT_MEMORY);
      System.out.println(String.join(" ", options));
    } catch (ConfigException e) {
      System.err.println("Invalid configuration in " + args[0] + ": " + e.getMessage());
      System.exit(2);
    }
  }
}
