package io.sluice.testcluster;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.CoordinatorServer;
import io.sluice.fixtures.Await;
import io.sluice.server.ServerOptions;
import io.sluice.server.ShuffleServer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A coordinator and shuffle servers in this JVM, on ephemeral loopback ports with temporary
 * directories: the cluster Spark jobs in tests run against.
 */
public final class MiniCluster implements Closeable {
  private final Path root;
  private final CoordinatorServer coordinator;
  private final List<ShuffleServer> servers = new ArrayList<>();
  private final Set<ShuffleServer> stopped = new HashSet<>();
  private final int disksPerServer;

  public MiniCluster(int numServers, Map<String, String> serverOverrides) throws Exception {
    this(numServers, serverOverrides, Map.of());
  }

  /**
   * @param daemonOverrides settings of the coordinator and every server (authentication)
   */
  public MiniCluster(
      int numServers, Map<String, String> serverOverrides, Map<String, String> daemonOverrides)
      throws Exception {
    this(numServers, 1, serverOverrides, daemonOverrides);
  }

  /**
   * @param disksPerServer local directories of each server, see {@link #localDir}
   */
  public MiniCluster(
      int numServers,
      int disksPerServer,
      Map<String, String> serverOverrides,
      Map<String, String> daemonOverrides)
      throws Exception {
    this(
        Files.createTempDirectory("sluice-minicluster"),
        numServers,
        disksPerServer,
        serverOverrides,
        daemonOverrides);
  }

  /**
   * @param root where the servers' local directories go (a small file system, to fill one)
   */
  public MiniCluster(
      Path root,
      int numServers,
      int disksPerServer,
      Map<String, String> serverOverrides,
      Map<String, String> daemonOverrides)
      throws Exception {
    this.root = root;
    this.disksPerServer = disksPerServer;
    Map<String, String> c = new HashMap<>();
    c.put(CoordinatorOptions.BIND_HOST.key(), "127.0.0.1");
    c.put(CoordinatorOptions.PORT.key(), "0");
    c.put(CoordinatorOptions.HTTP_PORT.key(), "0");
    c.putAll(daemonOverrides);
    this.coordinator = CoordinatorServer.start(conf(c));
    for (int i = 0; i < numServers; i++) {
      Map<String, String> s = new HashMap<>();
      s.put(ServerOptions.BIND_HOST.key(), "127.0.0.1");
      s.put(ServerOptions.PORT.key(), "0");
      s.put(ServerOptions.HTTP_PORT.key(), "0");
      List<String> dirs = new ArrayList<>();
      for (int d = 0; d < disksPerServer; d++) {
        dirs.add(localDir(i, d).toString());
      }
      s.put(ServerOptions.LOCAL_DIRS.key(), String.join(",", dirs));
      s.put(ServerOptions.DISK_MIN_FREE.key(), "0");
      s.put(ServerOptions.BUFFER_CAPACITY.key(), "128m");
      s.put(ServerOptions.READ_BUFFER_CAPACITY.key(), "64m");
      s.put(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "4m");
      s.put(ServerOptions.COORDINATORS.key(), "127.0.0.1:" + coordinator.port());
      s.put(ServerOptions.HEARTBEAT_INTERVAL.key(), "200ms");
      s.putAll(daemonOverrides);
      s.putAll(serverOverrides);
      servers.add(new ShuffleServer(conf(s)));
    }
    Await.until(
        () -> coordinator.servers().size() >= numServers,
        numServers + " servers registered with the coordinator");
  }

  private static SluiceConf conf(Map<String, String> raw) {
    return ConfigLoader.fromMap(
        raw,
        ConfigDocGenerator.discover().stream()
            .filter(set -> !set.title().startsWith("Spark client"))
            .toList());
  }

  /** Local directory {@code disk} of server {@code server}. */
  public Path localDir(int server, int disk) {
    Path dir = root.resolve("server-" + server);
    return disksPerServer == 1 ? dir : dir.resolve("disk-" + disk);
  }

  /** The directory under which the servers keep their data. */
  public Path root() {
    return root;
  }

  public String coordinatorAddress() {
    return "127.0.0.1:" + coordinator.port();
  }

  public List<ShuffleServer> servers() {
    return servers;
  }

  public CoordinatorServer coordinator() {
    return coordinator;
  }

  /** Bytes all servers accepted from pushes. */
  public long pushedBytes() {
    return servers.stream().mapToLong(s -> (long) s.metrics().pushedBytes()).sum();
  }

  /** Bytes the servers served to readers (indexes, memory and disk), from their /metrics. */
  public double readBytes() throws IOException, InterruptedException {
    double sum = 0;
    for (ShuffleServer s : servers) {
      sum += MetricsScrape.fetch(s.httpPort()).sum("sluice_server_read_bytes_total");
    }
    return sum;
  }

  /** Stops server {@code i} (it closes its connections and drops its data), for good. */
  public void stopServer(int i) {
    ShuffleServer server = servers.get(i);
    if (stopped.add(server)) {
      server.close();
    }
  }

  @Override
  public void close() throws IOException {
    for (ShuffleServer s : servers) {
      if (stopped.add(s)) {
        s.close();
      }
    }
    coordinator.close();
    try (var files = Files.walk(root)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
