package io.sluice.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.common.auth.AuthOptions;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.fixtures.Daemons;
import io.sluice.server.ServerOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A coordinator and shuffle servers on this machine, started and stopped with the shipped {@code
 * bin/} scripts (as an operator would), with configuration files written under a work directory and
 * ports chosen free. Extra JVM options reach the daemons through the scripts' {@code
 * SLUICE_JAVA_OPTS}, e.g. a JFR recording.
 */
public final class SluiceCluster implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path home;
  private final Path dir;
  private final Map<String, String> env;
  private final int coordinatorPort;
  private final int coordinatorHttpPort;
  private final List<Path> serverConfs = new ArrayList<>();
  private final List<Integer> serverHttpPorts = new ArrayList<>();
  private final Path coordinatorConf;
  private final Set<Integer> ports = new HashSet<>();
  private final Placement placement;
  private final List<String> serverHosts = new ArrayList<>();
  private boolean started;

  /**
   * Where each daemon runs: its address, and what a command is prefixed with to run there (for
   * hosts of a network test bed, {@code ip netns exec <namespace>}).
   */
  public interface Placement {
    /**
     * @param daemon {@code coordinator}, or {@code server-<i>} counting from 1
     */
    String host(String daemon);

    List<String> launcher(String daemon);
  }

  /** Every daemon on this machine's loopback address. */
  public static final Placement LOOPBACK =
      new Placement() {
        @Override
        public String host(String daemon) {
          return "127.0.0.1";
        }

        @Override
        public List<String> launcher(String daemon) {
          return List.of();
        }
      };

  /** Settings of each server: memory for pushed data and for reads, and the server heap. */
  public record ServerSizing(String bufferCapacity, String readBufferCapacity, String heap) {}

  public SluiceCluster(Path home, Path dir, int servers, ServerSizing sizing) throws IOException {
    this(home, dir, servers, sizing, Map.of());
  }

  /**
   * @param daemonSettings further settings of the coordinator and every server (authentication,
   *     TLS), written into their configuration files
   */
  public SluiceCluster(
      Path home, Path dir, int servers, ServerSizing sizing, Map<String, String> daemonSettings)
      throws IOException {
    this(home, dir, servers, sizing, daemonSettings, Map.of());
  }

  /**
   * @param daemonSettings further settings of the coordinator and every server (authentication,
   *     TLS), written into their configuration files
   * @param serverSettings further settings of every server only, replacing the harness's own
   */
  public SluiceCluster(
      Path home,
      Path dir,
      int servers,
      ServerSizing sizing,
      Map<String, String> daemonSettings,
      Map<String, String> serverSettings)
      throws IOException {
    this(home, dir, servers, sizing, daemonSettings, serverSettings, LOOPBACK);
  }

  /** As above, with each daemon where {@code placement} puts it. */
  public SluiceCluster(
      Path home,
      Path dir,
      int servers,
      ServerSizing sizing,
      Map<String, String> daemonSettings,
      Map<String, String> serverSettings,
      Placement placement)
      throws IOException {
    this.home = home;
    this.placement = placement;
    this.dir = dir;
    Files.createDirectories(dir);
    this.env =
        Map.of(
            "SLUICE_LOG_DIR",
            dir.resolve("logs").toString(),
            "SLUICE_PID_DIR",
            dir.resolve("run").toString(),
            "SLUICE_SERVER_HEAP",
            sizing.heap(),
            "SLUICE_COORDINATOR_HEAP",
            "256m");
    coordinatorPort = freePort();
    coordinatorHttpPort = freePort();
    coordinatorConf = dir.resolve("coordinator.conf");
    List<String> extra = new ArrayList<>();
    daemonSettings.forEach((key, value) -> extra.add(entry(key, value)));
    List<String> coordinator =
        new ArrayList<>(
            List.of(
                entry(CoordinatorOptions.BIND_HOST.key(), placement.host("coordinator")),
                // Off loopback only on the test bed's hosts: namespaces the benchmark made.
                entry(AuthOptions.INSECURE_OFF_LOOPBACK.key(), true),
                entry(CoordinatorOptions.PORT.key(), coordinatorPort),
                entry(CoordinatorOptions.HTTP_PORT.key(), coordinatorHttpPort)));
    coordinator.addAll(extra);
    write(coordinatorConf, coordinator);
    for (int i = 1; i <= servers; i++) {
      int httpPort = freePort();
      Path conf = dir.resolve("server-" + i + ".conf");
      // A key may appear once in a file: later settings replace the harness's own.
      Map<String, Object> server = new LinkedHashMap<>();
      String host = placement.host("server-" + i);
      serverHosts.add(host);
      server.put(ServerOptions.BIND_HOST.key(), host);
      server.put(AuthOptions.INSECURE_OFF_LOOPBACK.key(), true);
      server.put(ServerOptions.ADVERTISED_HOST.key(), host);
      server.put(ServerOptions.PORT.key(), freePort());
      server.put(ServerOptions.HTTP_PORT.key(), httpPort);
      server.put(ServerOptions.COORDINATORS.key(), coordinatorAddress());
      server.put(ServerOptions.HEARTBEAT_INTERVAL.key(), "1s");
      server.put(ServerOptions.LOCAL_DIRS.key(), dir.resolve("data-" + i));
      server.put(ServerOptions.DISK_MIN_FREE.key(), "1g");
      server.put(ServerOptions.BUFFER_CAPACITY.key(), sizing.bufferCapacity());
      server.put(ServerOptions.READ_BUFFER_CAPACITY.key(), sizing.readBufferCapacity());
      server.putAll(daemonSettings);
      server.putAll(serverSettings);
      write(conf, server.entrySet().stream().map(e -> entry(e.getKey(), e.getValue())).toList());
      serverConfs.add(conf);
      serverHttpPorts.add(httpPort);
    }
  }

  public String coordinatorAddress() {
    return placement.host("coordinator") + ":" + coordinatorPort;
  }

  public List<Integer> serverMetricsPorts() {
    return List.copyOf(serverHttpPorts);
  }

  /** Each server's HTTP address, {@code host:port}. */
  public List<String> serverMetricsAddresses() {
    List<String> addresses = new ArrayList<>();
    for (int i = 0; i < serverHttpPorts.size(); i++) {
      addresses.add(serverHosts.get(i) + ":" + serverHttpPorts.get(i));
    }
    return addresses;
  }

  public List<Path> configurationFiles() {
    List<Path> all = new ArrayList<>(List.of(coordinatorConf));
    all.addAll(serverConfs);
    return all;
  }

  /** Starts everything and waits until the coordinator counts every server as active. */
  public void start() throws IOException, InterruptedException {
    started = true;
    script("start-coordinator.sh", coordinatorConf, "coordinator");
    for (int i = 0; i < serverConfs.size(); i++) {
      script("start-server.sh", serverConfs.get(i), "server-" + (i + 1));
    }
    awaitCoordinator(
        status ->
            count(status, server -> "active".equals(server.path("condition").asText()))
                >= serverConfs.size(),
        serverConfs.size() + " active servers");
  }

  /** The process id of server {@code i} (from 0), as its start script recorded it. */
  public long serverPid(int i) throws IOException {
    String instance = serverConfs.get(i).getFileName().toString().replaceFirst("\\.[^.]*$", "");
    return Long.parseLong(
        Files.readString(
                dir.resolve("run").resolve("server-" + instance + ".pid"), StandardCharsets.UTF_8)
            .trim());
  }

  /**
   * Starts server {@code i} again with {@code bin/start-server.sh} (after a kill) and waits until
   * the coordinator has a heartbeat of the new process and counts the server active.
   */
  public void restartServer(int i) throws IOException, InterruptedException {
    long startedMillis = System.currentTimeMillis();
    script("start-server.sh", serverConfs.get(i), "server-" + (i + 1));
    int httpPort = serverHttpPorts.get(i);
    awaitCoordinator(
        status ->
            count(
                    status,
                    server ->
                        server.path("httpPort").asInt() == httpPort
                            && "active".equals(server.path("condition").asText())
                            && server.path("lastHeartbeatAgeMillis").asLong()
                                < System.currentTimeMillis() - startedMillis)
                == 1,
        "server " + (i + 1) + " heart-beating again");
  }

  /**
   * Each server's memory, connection and request figures from its {@code /metrics} now (the {@code
   * sluice_server_} lines), for a run that failed or hung.
   */
  public String serverMetrics() {
    StringBuilder out = new StringBuilder();
    HttpClient http = HttpClient.newHttpClient();
    for (String address : serverMetricsAddresses()) {
      out.append("== /metrics of the server at ").append(address).append('\n');
      try {
        String metrics =
            http.send(
                    HttpRequest.newBuilder(URI.create("http://" + address + "/metrics"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        metrics
            .lines()
            .filter(l -> l.startsWith("sluice_server_") && !l.contains("_bucket{"))
            .forEach(l -> out.append(l).append('\n'));
      } catch (IOException e) {
        out.append("(unreadable: ").append(e).append(")\n");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return out.toString();
      }
    }
    return out.toString();
  }

  /** The last {@code n} lines of each daemon's log, each under its file name. */
  public String logTails(int n) throws IOException {
    StringBuilder out = new StringBuilder();
    Path logs = dir.resolve("logs");
    if (Files.isDirectory(logs)) {
      try (Stream<Path> files = Files.list(logs)) {
        for (Path log : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
          out.append("== ").append(log).append('\n').append(Daemons.tail(log, n)).append('\n');
        }
      }
    }
    return out.toString();
  }

  private void awaitCoordinator(Predicate<JsonNode> condition, String what)
      throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        String status =
            http.send(
                    HttpRequest.newBuilder(
                            URI.create(
                                "http://"
                                    + placement.host("coordinator")
                                    + ":"
                                    + coordinatorHttpPort
                                    + "/status"))
                        .timeout(Duration.ofSeconds(2))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        if (condition.test(JSON.readTree(status))) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IOException(
        "the coordinator did not see " + what + " within 60 s; logs in " + dir.resolve("logs"));
  }

  private static int count(JsonNode status, Predicate<JsonNode> which) {
    int n = 0;
    for (JsonNode server : status.path("servers")) {
      if (which.test(server)) {
        n++;
      }
    }
    return n;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (!started) {
      return;
    }
    started = false;
    for (int i = 0; i < serverConfs.size(); i++) {
      script("stop-server.sh", serverConfs.get(i), "server-" + (i + 1));
    }
    script("stop-coordinator.sh", coordinatorConf, "coordinator");
  }

  private void script(String script, Path conf, String daemon)
      throws IOException, InterruptedException {
    System.out.println(Daemons.in(home).script(script, conf, env, placement.launcher(daemon)));
  }

  private static String entry(String key, Object value) {
    return key + " " + value;
  }

  private static void write(Path file, List<String> lines) throws IOException {
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** A free port not handed out before by this cluster. */
  private int freePort() throws IOException {
    while (true) {
      int port = Daemons.freePort();
      if (ports.add(port)) {
        return port;
      }
    }
  }
}
