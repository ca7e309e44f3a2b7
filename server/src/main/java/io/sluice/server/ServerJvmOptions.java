package io.sluice.server;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import java.nio.file.Path;
import java.util.Map;

/**
 * Prints the JVM options {@code bin/start-server.sh} starts the server with, so that the script never
 * parses sizes itself: direct memory is {@code buffer.capacity + read.buffer.capacity} plus a fixed
 * allowance for Netty's network pool, and the heap is small because shuffle bytes never live there.
 * Usage: {@code ServerJvmOptions <server.conf> <heap size>}.
 */
public final class ServerJvmOptions {
  /**
   * Direct memory beyond the two budgets: the network pool's receive buffers for frames in flight
   * (they are copied into the push pool at once), response headers, and chunk granularity. See
   * docs/architecture.md for how it was measured.
   */
  public static final long NETWORK_OVERHEAD_BYTES = 256L << 20;

  private ServerJvmOptions() {}

  public static long maxDirectMemory(SluiceConf conf) {
    return conf.get(ServerOptions.BUFFER_CAPACITY) + conf.get(ServerOptions.READ_BUFFER_CAPACITY)
        + NETWORK_OVERHEAD_BYTES;
  }

  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: ServerJvmOptions <server.conf> <heap size, e.g. 512m>");
      System.exit(2);
    }
    try {
      SluiceConf conf =
          ConfigLoader.load(Path.of(args[0]), Map.of(), ConfigDocGenerator.discover());
      String heap = args[1];
      System.out.println(String.join(" ",
          "-Xms" + heap,
          "-Xmx" + heap,
          "-XX:MaxDirectMemorySize=" + maxDirectMemory(conf),
          "-XX:+UseG1GC",
          "-XX:+ExitOnOutOfMemoryError",
          // Lets Netty allocate direct memory without cleaners, counted against the limit above.
          "-Dio.netty.tryReflectionSetAccessible=true",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED"));
    } catch (ConfigException e) {
      System.err.println("Invalid configuration in " + args[0] + ": " + e.getMessage());
      System.exit(2);
    }
  }
}
