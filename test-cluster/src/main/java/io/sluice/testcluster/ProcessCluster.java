package io.sluice.testcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.common.auth.AuthOptions;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.fixtures.Await;
import io.sluice.fixtures.Daemons;
import io.sluice.fixtures.NetBed;
import io.sluice.server.ServerOptions;
import io.sluice.testcluster.DaemonLauncher.Role;
import java.io.Closeable;
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
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A coordinator and shuffle servers, each in a process of its own, so that a test or a benchmark
 * can kill a server ({@code kill -9}), freeze it ({@code SIGSTOP}) and start it again on the same
 * ports. A {@link DaemonLauncher} says how a daemon starts: through the shipped {@code bin/}
 * scripts of a home ({@link #withScripts}) or as a JVM on the caller's class path ({@link
 * #forTests}). On loopback every daemon listens on 127.0.0.1; on a {@link NetBed} the coordinator
 * runs on the bed's host {@code coord} and server {@code i} on host {@code s<i>}, so that their
 * links can be capped and cut. Server {@code i} is {@code server-<i>}, counting from 0.
 *
 * <p>{@link #close()} stops what runs, and fails when a server reported a leaked buffer ({@code
 * LEAK:} in its log; the class-path launcher runs the daemons with paranoid leak detection).
 */
public final class ProcessCluster implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Memory of each server for pushed data and for reads, and the server heap. */
  public record ServerSizing(String bufferCapacity, String readBufferCapacity, String heap) {}

  private final Path dir;
  private final boolean ownsDir;
  private final DaemonLauncher launcher;
  private final NetBed bed;
  private final Node coordinator;
  private final List<Node> servers = new ArrayList<>();

  /** One daemon: where it listens, its configuration file, and its process while it runs. */
  private static final class Node {
    final String id;
    final String bedHost;
    final String host;
    final int port;
    final int httpPort;
    final Path conf;
    Daemon daemon;

    Node(String id, String bedHost, String host, int port, int httpPort, Path conf) {
      this.id = id;
      this.bedHost = bedHost;
      this.host = host;
      this.port = port;
      this.httpPort = httpPort;
      this.conf = conf;
    }
  }

  /**
   * Servers for tests: JVMs on the test's class path with paranoid leak detection, small memory
   * budgets (64 MiB for pushes, 32 MiB for reads), heartbeats every 200 ms that the coordinator
   * misses after 2 s, and a drain of 2 s on SIGTERM.
   */
  public static Builder forTests(int servers) {
    return new Builder(servers, ClassPathLauncher.PLAIN)
        .coordinatorSetting(CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT.key(), "2s")
        .serverSetting(ServerOptions.DISK_MIN_FREE.key(), "0")
        .serverSetting(ServerOptions.BUFFER_CAPACITY.key(), "64m")
        .serverSetting(ServerOptions.READ_BUFFER_CAPACITY.key(), "32m")
        .serverSetting(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "2m")
        .serverSetting(ServerOptions.HEARTBEAT_INTERVAL.key(), "200ms")
        .serverSetting(ServerOptions.DRAIN_TIMEOUT.key(), "2s");
  }

  /**
   * Servers for benchmarks, as an operator runs them: the {@code bin/} scripts of {@code home},
   * otherwise default settings but for the memory of {@code sizing} and heartbeats every second.
   */
  public static Builder withScripts(Path home, int servers, ServerSizing sizing) {
    return new Builder(servers, new ScriptLauncher(home, sizing.heap(), null))
        .serverSetting(ServerOptions.HEARTBEAT_INTERVAL.key(), "1s")
        .serverSetting(ServerOptions.DISK_MIN_FREE.key(), "1g")
        .serverSetting(ServerOptions.BUFFER_CAPACITY.key(), sizing.bufferCapacity())
        .serverSetting(ServerOptions.READ_BUFFER_CAPACITY.key(), sizing.readBufferCapacity());
  }

  /** What a cluster is made of; {@link #create} writes its configuration files. */
  public static final class Builder {
    private final int servers;
    private DaemonLauncher launcher;
    private Path dir;
    private NetBed bed;
    private final Map<String, String> coordinatorSettings = new LinkedHashMap<>();
    private final Map<String, String> serverSettings = new LinkedHashMap<>();

    private Builder(int servers, DaemonLauncher launcher) {
      this.servers = servers;
      this.launcher = launcher;
    }

    /** Daemons started by {@code launcher} instead. */
    public Builder launcher(DaemonLauncher launcher) {
      this.launcher = launcher;
      return this;
    }

    /** Files under {@code dir}, kept after {@link #close()}; by default a temporary directory. */
    public Builder in(Path dir) {
      this.dir = dir;
      return this;
    }

    /** Daemons on {@code bed}'s hosts {@code coord} and {@code s0}, {@code s1}, ... */
    public Builder on(NetBed bed) {
      this.bed = bed;
      return this;
    }

    public Builder coordinatorSetting(String key, String value) {
      coordinatorSettings.put(key, value);
      return this;
    }

    /** A setting of every server, replacing what the preset or an earlier call set. */
    public Builder serverSetting(String key, String value) {
      serverSettings.put(key, value);
      return this;
    }

    public Builder serverSettings(Map<String, String> settings) {
      serverSettings.putAll(settings);
      return this;
    }

    /** Settings of the coordinator and every server (authentication, TLS). */
    public Builder daemonSettings(Map<String, String> settings) {
      coordinatorSettings.putAll(settings);
      serverSettings.putAll(settings);
      return this;
    }

    /** Writes the configuration files; nothing runs until {@link ProcessCluster#start()}. */
    public ProcessCluster create() throws IOException {
      return new ProcessCluster(this);
    }

    /** Creates the cluster and starts it; what started is stopped again when a daemon fails. */
    public ProcessCluster start() throws Exception {
      ProcessCluster cluster = create();
      try {
        cluster.start();
        return cluster;
      } catch (Exception | AssertionError e) {
        // AssertionError too: a wait that timed out. What started must not outlive the caller.
        try {
          cluster.close();
        } catch (Exception | AssertionError suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
  }

  private ProcessCluster(Builder b) throws IOException {
    this.ownsDir = b.dir == null;
    this.dir = ownsDir ? Files.createTempDirectory("sluice-cluster") : b.dir;
    Files.createDirectories(dir);
    this.launcher = b.launcher;
    this.bed = b.bed;
    Set<Integer> ports = new HashSet<>();
    String coordinatorHost = address("coord");
    Map<String, String> c = new LinkedHashMap<>();
    c.put(CoordinatorOptions.BIND_HOST.key(), coordinatorHost);
    // Off loopback only on a bed's hosts: namespaces the caller made, which nothing else reaches.
    c.put(AuthOptions.INSECURE_OFF_LOOPBACK.key(), "true");
    int coordinatorPort = freePort(ports);
    int coordinatorHttpPort = freePort(ports);
    c.put(CoordinatorOptions.PORT.key(), String.valueOf(coordinatorPort));
    c.put(CoordinatorOptions.HTTP_PORT.key(), String.valueOf(coordinatorHttpPort));
    c.putAll(b.coordinatorSettings);
    Path coordinatorConf = write("coordinator.conf", c);
    this.coordinator =
        new Node(
            "coordinator",
            "coord",
            coordinatorHost,
            coordinatorPort,
            coordinatorHttpPort,
            coordinatorConf);
    for (int i = 0; i < b.servers; i++) {
      String id = "server-" + i;
      String host = address("s" + i);
      int port = freePort(ports);
      int httpPort = freePort(ports);
      Map<String, String> s = new LinkedHashMap<>();
      s.put(ServerOptions.SERVER_ID.key(), id);
      s.put(ServerOptions.BIND_HOST.key(), host);
      s.put(AuthOptions.INSECURE_OFF_LOOPBACK.key(), "true");
      s.put(ServerOptions.ADVERTISED_HOST.key(), host);
      s.put(ServerOptions.PORT.key(), String.valueOf(port));
      s.put(ServerOptions.HTTP_PORT.key(), String.valueOf(httpPort));
      s.put(ServerOptions.LOCAL_DIRS.key(), dir.resolve(id + "-data").toString());
      s.put(ServerOptions.COORDINATORS.key(), coordinatorAddress());
      // A key may appear once in a file: the caller's settings replace the cluster's own.
      s.putAll(b.serverSettings);
      servers.add(new Node(id, "s" + i, host, port, httpPort, write(id + ".conf", s)));
    }
  }

  private String address(String bedHost) {
    return bed == null ? "127.0.0.1" : bed.address(bedHost);
  }

  private Path write(String name, Map<String, String> settings) throws IOException {
    List<String> lines = new ArrayList<>();
    settings.forEach((key, value) -> lines.add(key + " " + value));
    return Files.write(dir.resolve(name), lines, StandardCharsets.UTF_8);
  }

  /** Starts the coordinator and every server, and waits until the coordinator counts them all. */
  public void start() throws Exception {
    launch(Role.COORDINATOR, coordinator);
    for (int i = 0; i < servers.size(); i++) {
      start(i);
    }
    awaitLive(servers.size());
  }

  /**
   * Starts server {@code i} (again, after a kill or a stop) on its own ports, and waits until it
   * serves and the coordinator has heard from this process, so that the next shuffle can be
   * assigned to it.
   */
  public void start(int i) throws Exception {
    Node s = servers.get(i);
    long startedMillis = System.currentTimeMillis();
    launch(Role.SERVER, s);
    // A heartbeat of this process, not of the one before it: the heartbeat's age is measured when
    // the coordinator answers, at or after askedMillis, so a heartbeat no older than
    // askedMillis - startedMillis came after the start.
    awaitCoordinator(
        (server, askedMillis) ->
            server.path("id").asText().equals(s.id)
                && "active".equals(server.path("condition").asText())
                && server.path("lastHeartbeatAgeMillis").asLong() <= askedMillis - startedMillis,
        1,
        s.id + " heart-beating to the coordinator");
  }

  /** Starts a daemon and waits until it accepts connections; recorded first, to be stopped. */
  private void launch(Role role, Node node) throws IOException, InterruptedException {
    List<String> prefix = bed == null ? List.of() : bed.launcher(node.bedHost);
    node.daemon = launcher.start(role, node.conf, dir, prefix);
    Daemons.awaitPort(node.host, node.port, node.daemon.log());
  }

  /** Waits until the coordinator counts {@code n} active servers. */
  public void awaitLive(int n) throws Exception {
    awaitCoordinator(
        (server, askedMillis) -> "active".equals(server.path("condition").asText()),
        n,
        n + " live servers");
  }

  /** A server in the coordinator's {@code /status}, and when the status was asked for. */
  private interface ServerCondition {
    boolean test(JsonNode server, long askedMillis);
  }

  /**
   * Waits until exactly {@code n} servers of the coordinator's {@code /status} meet {@code which}.
   */
  private void awaitCoordinator(ServerCondition which, int n, String what)
      throws InterruptedException {
    // Each poll is a request to the coordinator's process: a tenth of a second apart.
    Await.until(
        () -> countServers(which) == n, Await.DEFAULT_TIMEOUT, Duration.ofMillis(100), () -> what);
  }

  /** Servers in the coordinator's {@code /status} satisfying {@code which}; -1 without answer. */
  private int countServers(ServerCondition which) {
    long askedMillis = System.currentTimeMillis();
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://" + coordinator.host + ":" + coordinator.httpPort + "/status"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      int n = 0;
      for (JsonNode server : JSON.readTree(response.body()).path("servers")) {
        if (which.test(server, askedMillis)) {
          n++;
        }
      }
      return n;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  public String coordinatorAddress() {
    return coordinator.host + ":" + coordinator.port;
  }

  public int size() {
    return servers.size();
  }

  /** The address server {@code i} listens on. */
  public String host(int i) {
    return servers.get(i).host;
  }

  public int port(int i) {
    return servers.get(i).port;
  }

  /** Server {@code i}'s HTTP port ({@code /metrics}, {@code /status}). */
  public int httpPort(int i) {
    return servers.get(i).httpPort;
  }

  /** Each server's HTTP address, {@code host:port}. */
  public List<String> httpAddresses() {
    return servers.stream().map(s -> s.host + ":" + s.httpPort).toList();
  }

  public String serverId(int i) {
    return servers.get(i).id;
  }

  /** Server {@code i}'s log file. */
  public Path log(int i) {
    return running(i).log();
  }

  /** The process id of server {@code i}'s JVM. */
  public long pid(int i) {
    return running(i).pid();
  }

  public boolean isAlive(int i) {
    Daemon daemon = servers.get(i).daemon;
    return daemon != null && daemon.isAlive();
  }

  private Daemon running(int i) {
    Daemon daemon = servers.get(i).daemon;
    if (daemon == null) {
      throw new IllegalStateException(servers.get(i).id + " was never started");
    }
    return daemon;
  }

  /** Kills server {@code i} with SIGKILL and waits until the process is gone. */
  public void kill(int i) throws IOException, InterruptedException {
    running(i).kill();
  }

  /**
   * Stops server {@code i} as {@code bin/stop-server.sh} does (SIGTERM): it drains for {@code
   * server.drain.timeout}, then exits.
   */
  public void stop(int i) throws IOException, InterruptedException {
    running(i).stop();
  }

  /**
   * Freezes server {@code i} with SIGSTOP, as a long pause or a hung disk would: its port still
   * takes connections and its sockets stay open, but nothing answers until {@link #thaw}.
   */
  public void freeze(int i) throws IOException, InterruptedException {
    running(i).signal("STOP");
  }

  /** Resumes server {@code i} after {@link #freeze} (SIGCONT); harmless on a running server. */
  public void thaw(int i) throws IOException, InterruptedException {
    if (running(i).isAlive()) {
      running(i).signal("CONT");
    }
  }

  /** A counter or gauge of server {@code i}'s {@code /metrics}, summed over label values. */
  public double metric(int i, String name) throws IOException, InterruptedException {
    return MetricsScrape.fetch(host(i), httpPort(i)).sum(name);
  }

  /** Bytes that the running servers took from pushes (clients and replication alike). */
  public double pushedBytes() throws IOException, InterruptedException {
    double sum = 0;
    for (int i = 0; i < servers.size(); i++) {
      if (isAlive(i)) {
        sum += metric(i, "sluice_server_pushed_bytes_total");
      }
    }
    return sum;
  }

  /**
   * Each running server's own figures from its {@code /metrics} now (the {@code sluice_server_}
   * samples but histogram buckets), for a run that failed or hung.
   */
  public String serverMetrics() {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < servers.size(); i++) {
      out.append("== /metrics of ").append(serverId(i)).append(" at ");
      out.append(host(i)).append(':').append(httpPort(i)).append('\n');
      if (!isAlive(i)) {
        out.append("(not running)\n");
        continue;
      }
      try {
        MetricsScrape scrape = MetricsScrape.fetch(host(i), httpPort(i), Duration.ofSeconds(5));
        for (MetricsScrape.Sample s : scrape.samples()) {
          if (s.name().startsWith("sluice_server_") && !s.name().endsWith("_bucket")) {
            out.append(s.name());
            if (!s.labels().isEmpty()) {
              out.append('{').append(s.labels()).append('}');
            }
            out.append(' ').append(s.value()).append('\n');
          }
        }
      } catch (IOException e) {
        out.append("(unreadable: ").append(e).append(")\n");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return out.toString();
  }

  /** The last {@code n} lines of each daemon's log, each under its file name. */
  public String logTails(int n) {
    StringBuilder out = new StringBuilder();
    List<Node> all = new ArrayList<>(List.of(coordinator));
    all.addAll(servers);
    for (Node node : all) {
      if (node.daemon != null) {
        Path log = node.daemon.log();
        out.append("== ").append(log).append('\n').append(Daemons.tail(log, n)).append('\n');
      }
    }
    return out.toString();
  }

  /**
   * Stops every daemon (thawed first if frozen; killed when it does not stop, or when this thread
   * is interrupted), then deletes the cluster's own directory.
   *
   * @throws AssertionError when a server reported a leaked buffer and the launcher runs them with
   *     paranoid leak detection (otherwise the report is printed)
   */
  @Override
  public void close() throws IOException {
    List<String> leaks = new ArrayList<>();
    IOException failure = null;
    List<Node> all = new ArrayList<>(servers);
    all.add(coordinator);
    for (Node node : all) {
      if (node.daemon == null) {
        continue;
      }
      try {
        // SIGTERM: the daemon closes itself, and leak detection has its chance to report.
        stopForGood(node.daemon);
        if (reportsLeak(node.daemon.log())) {
          leaks.add(node.id + " (" + node.daemon.log() + ")");
        }
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (!leaks.isEmpty()) {
      if (launcher.detectsLeaks()) {
        throw new AssertionError("buffer leaks reported by " + leaks);
      }
      System.err.println("buffer leaks reported by " + leaks);
    }
    if (failure != null) {
      throw failure;
    }
    if (ownsDir) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static boolean reportsLeak(Path log) throws IOException {
    if (!Files.exists(log)) {
      return false;
    }
    // Latin-1 decodes any byte, so a line that is not UTF-8 cannot stop the search.
    try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
      return lines.anyMatch(line -> line.contains("LEAK:"));
    }
  }

  /** Stops {@code daemon}, thawed first if frozen; kills it when it does not stop. */
  private static void stopForGood(Daemon daemon) throws IOException {
    if (!daemon.isAlive()) {
      return;
    }
    try {
      daemon.signal("CONT");
      daemon.stop();
    } catch (IOException e) {
      daemon.killNow();
      throw e;
    } catch (InterruptedException e) {
      // No waiting any more: the daemon must not outlive the caller all the same.
      daemon.killNow();
      Thread.currentThread().interrupt();
    }
  }

  /** A free port not handed out before to this cluster. */
  private static int freePort(Set<Integer> taken) throws IOException {
    while (true) {
      int port = Daemons.freePort();
      if (taken.add(port)) {
        return port;
      }
    }
  }
}
