package io.sluice.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.common.auth.AuthOptions;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.CoordinatorServer;
import io.sluice.fixtures.Await;
import io.sluice.fixtures.Daemons;
import io.sluice.fixtures.NetBed;
import io.sluice.fixtures.ProjectRoot;
import io.sluice.server.ServerOptions;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A coordinator in this JVM and shuffle servers in JVMs of their own, each on a fixed loopback port
 * picked at start, so that a test can kill a server with SIGKILL ({@code kill -9}) and start it
 * again on the same port. On a {@link NetBed}, server {@code i} runs on the bed's host {@code s<i>}
 * at that host's address instead, and the coordinator is a process of its own on the bed's host
 * {@code coord}, so that its link can be cut too. Servers log to files under the cluster's
 * directory; {@link #close()} fails if a server that was not killed reported a leaked buffer (they
 * run with paranoid leak detection).
 */
final class ProcessCluster implements Closeable {
  private static final Duration WAIT = Duration.ofSeconds(90);

  private final Path root;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Null on loopback. */
  private final NetBed bed;

  /** The coordinator in this JVM; null on a bed, where it runs as {@link #coordinatorProcess}. */
  private final CoordinatorServer coordinator;

  private Process coordinatorProcess;
  private final String coordinatorHost;
  private final int coordinatorPort;
  private final int coordinatorHttpPort;
  private final List<Server> servers = new ArrayList<>();

  /** One server process: its id, ports and configuration, and the process when running. */
  private static final class Server {
    final String id;
    final String host;
    final int port;
    final int httpPort;
    final Path conf;
    final Path log;
    Process process;

    Server(String id, String host, int port, int httpPort, Path conf, Path log) {
      this.id = id;
      this.host = host;
      this.port = port;
      this.httpPort = httpPort;
      this.conf = conf;
      this.log = log;
    }
  }

  /**
   * What a test adds to every server's JVM: options (system properties such as {@code
   * java.security.krb5.conf}) and directories put before the class path (Hadoop's site files, as
   * {@code bin/start-server.sh} puts {@code HADOOP_CONF_DIR} there).
   */
  record ServerJvm(List<String> options, List<Path> classPathFirst) {
    static final ServerJvm PLAIN = new ServerJvm(List.of(), List.of());
  }

  private final ServerJvm serverJvm;

  ProcessCluster(int numServers, Map<String, String> serverOverrides) throws Exception {
    this(numServers, serverOverrides, null, ServerJvm.PLAIN);
  }

  ProcessCluster(int numServers, Map<String, String> serverOverrides, ServerJvm jvm)
      throws Exception {
    this(numServers, serverOverrides, null, jvm);
  }

  ProcessCluster(int numServers, Map<String, String> serverOverrides, NetBed bed) throws Exception {
    this(numServers, serverOverrides, bed, ServerJvm.PLAIN);
  }

  /**
   * @param bed where the servers run (hosts {@code s0}, {@code s1}, ...), or null for loopback
   */
  ProcessCluster(int numServers, Map<String, String> serverOverrides, NetBed bed, ServerJvm jvm)
      throws Exception {
    this.serverJvm = jvm;
    this.root = Files.createTempDirectory("sluice-processes");
    this.bed = bed;
    this.coordinatorHost = bed == null ? "127.0.0.1" : bed.address("coord");
    Map<String, String> c = new HashMap<>();
    c.put(CoordinatorOptions.BIND_HOST.key(), coordinatorHost);
    // The bed's hosts are namespaces this test made, which nothing else reaches.
    c.put(AuthOptions.INSECURE_OFF_LOOPBACK.key(), "true");
    c.put(CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT.key(), "2s");
    if (bed == null) {
      c.put(CoordinatorOptions.PORT.key(), "0");
      c.put(CoordinatorOptions.HTTP_PORT.key(), "0");
      this.coordinator =
          CoordinatorServer.start(
              ConfigLoader.fromMap(
                  c,
                  ConfigDocGenerator.discover().stream()
                      .filter(set -> !set.title().startsWith("Spark client"))
                      .toList()));
      this.coordinatorPort = coordinator.port();
      this.coordinatorHttpPort = coordinator.httpPort();
    } else {
      this.coordinator = null;
      this.coordinatorPort = Daemons.freePort();
      this.coordinatorHttpPort = Daemons.freePort();
      c.put(CoordinatorOptions.PORT.key(), String.valueOf(coordinatorPort));
      c.put(CoordinatorOptions.HTTP_PORT.key(), String.valueOf(coordinatorHttpPort));
      startCoordinatorProcess(c);
    }
    try {
      for (int i = 0; i < numServers; i++) {
        String id = "server-" + i;
        String host = bed == null ? "127.0.0.1" : bed.address("s" + i);
        Map<String, String> s = new LinkedHashMap<>();
        s.put(ServerOptions.SERVER_ID.key(), id);
        s.put(ServerOptions.BIND_HOST.key(), host);
        s.put(AuthOptions.INSECURE_OFF_LOOPBACK.key(), "true");
        s.put(ServerOptions.ADVERTISED_HOST.key(), host);
        int port = Daemons.freePort();
        int httpPort = Daemons.freePort();
        s.put(ServerOptions.PORT.key(), String.valueOf(port));
        s.put(ServerOptions.HTTP_PORT.key(), String.valueOf(httpPort));
        s.put(ServerOptions.LOCAL_DIRS.key(), root.resolve(id + "-data").toString());
        s.put(ServerOptions.DISK_MIN_FREE.key(), "0");
        s.put(ServerOptions.BUFFER_CAPACITY.key(), "64m");
        s.put(ServerOptions.READ_BUFFER_CAPACITY.key(), "32m");
        s.put(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "2m");
        s.put(ServerOptions.COORDINATORS.key(), coordinatorAddress());
        s.put(ServerOptions.HEARTBEAT_INTERVAL.key(), "200ms");
        s.put(ServerOptions.DRAIN_TIMEOUT.key(), "2s");
        s.putAll(serverOverrides);
        Path conf = root.resolve(id + ".conf");
        Files.writeString(
            conf,
            s.entrySet().stream()
                .map(e -> e.getKey() + " = " + e.getValue())
                .collect(Collectors.joining("\n", "", "\n")));
        Server server = new Server(id, host, port, httpPort, conf, root.resolve(id + ".log"));
        servers.add(server);
        start(i);
      }
      awaitLive(numServers);
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  /** The address server {@code i} listens on. */
  String host(int i) {
    return servers.get(i).host;
  }

  String coordinatorAddress() {
    return coordinatorHost + ":" + coordinatorPort;
  }

  /** Server {@code i}'s HTTP port ({@code /metrics}, {@code /status}). */
  int httpPort(int i) {
    return servers.get(i).httpPort;
  }

  /** Server {@code i}'s log file. */
  Path log(int i) {
    return servers.get(i).log;
  }

  String serverId(int i) {
    return servers.get(i).id;
  }

  /** The process id of server {@code i}'s JVM, for signals (SIGSTOP, SIGCONT). */
  long pid(int i) {
    return servers.get(i).process.pid();
  }

  /**
   * Starts server {@code i} (again), on its own port, and waits until it serves and the coordinator
   * has heard from this process, so that the next shuffle can be assigned to it.
   */
  void start(int i) throws Exception {
    Server s = servers.get(i);
    long startedMillis =
        coordinator != null ? coordinator.servers().clock().millis() : System.currentTimeMillis();
    List<String> command =
        javaCommand(
            serverJvm,
            s.log,
            "-XX:MaxDirectMemorySize=" + (384L << 20),
            "io.sluice.server.ShuffleServerMain",
            s.conf);
    if (bed != null) {
      command = bed.command("s" + i, command);
    }
    s.process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve(s.id + ".out").toFile()))
            .start();
    Daemons.awaitPort(s.host, s.port, s.log);
    if (coordinator != null) {
      Await.until(
          () ->
              coordinator.servers().servers().stream()
                  .anyMatch(r -> r.id().equals(s.id) && r.lastHeartbeatMillis() >= startedMillis),
          s.id + " heart-beating to the coordinator");
    } else {
      Await.until(
          () ->
              countServers(
                      server ->
                          server.path("id").asText().equals(s.id)
                              && server.path("lastHeartbeatAgeMillis").asLong()
                                  <= System.currentTimeMillis() - startedMillis)
                  == 1,
          s.id + " heart-beating to the coordinator");
    }
  }

  private void startCoordinatorProcess(Map<String, String> settings) throws Exception {
    Path conf = root.resolve("coordinator.conf");
    Files.writeString(
        conf,
        settings.entrySet().stream()
            .map(e -> e.getKey() + " = " + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
    Path log = root.resolve("coordinator.log");
    coordinatorProcess =
        new ProcessBuilder(
                bed.command(
                    "coord",
                    javaCommand(
                        ServerJvm.PLAIN,
                        log,
                        "-XX:MaxDirectMemorySize=" + (256L << 20),
                        "io.sluice.coordinator.CoordinatorMain",
                        conf)))
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(root.resolve("coordinator.out").toFile()))
            .start();
    Daemons.awaitPort(coordinatorHost, coordinatorPort, log);
  }

  /** A daemon's JVM: this test's class path, paranoid leak detection, logging to {@code log}. */
  private static List<String> javaCommand(
      ServerJvm jvm, Path log, String directMemory, String main, Path conf) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> classPath = new ArrayList<>();
    jvm.classPathFirst().forEach(dir -> classPath.add(dir.toString()));
    classPath.add(System.getProperty("java.class.path"));
    List<String> command =
        new ArrayList<>(List.of(java, "-cp", String.join(File.pathSeparator, classPath)));
    command.addAll(jvm.options());
    command.addAll(
        List.of(
            "-Xmx256m",
            directMemory,
            "-XX:+ExitOnOutOfMemoryError",
            "-Dio.netty.leakDetection.level=paranoid",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Dlog4j2.configurationFile=" + ProjectRoot.get().resolve("conf/log4j2.xml"),
            "-Dsluice.log.file=" + log,
            main,
            conf.toString()));
    return command;
  }

  /** Servers in the coordinator's {@code /status} satisfying {@code which}; -1 without answer. */
  private int countServers(Predicate<JsonNode> which) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://" + coordinatorHost + ":" + coordinatorHttpPort + "/status"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      int n = 0;
      for (JsonNode server : JSON.readTree(response.body()).path("servers")) {
        if (which.test(server)) {
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

  /** Kills server {@code i} with SIGKILL and waits until the process is gone. */
  void kill(int i) throws InterruptedException {
    Process p = servers.get(i).process;
    p.destroyForcibly();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(serverId(i) + " did not die");
    }
  }

  /**
   * Stops server {@code i} as {@code bin/stop-server.sh} does (SIGTERM): it drains for {@code
   * server.drain.timeout} (2 s here), then exits.
   */
  void stop(int i) throws InterruptedException {
    Process p = servers.get(i).process;
    p.destroy();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException(serverId(i) + " did not stop after SIGTERM");
    }
  }

  /**
   * Freezes server {@code i} with SIGSTOP, as a long pause or a hung disk would: its port still
   * takes connections and its sockets stay open, but nothing answers until {@link #thaw}.
   */
  void freeze(int i) throws IOException, InterruptedException {
    signal(i, "STOP");
  }

  /** Resumes server {@code i} after {@link #freeze} (SIGCONT); harmless on a running server. */
  void thaw(int i) throws IOException, InterruptedException {
    signal(i, "CONT");
  }

  private void signal(int i, String name) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("kill", "-" + name, Long.toString(pid(i))).start();
    if (p.waitFor() != 0) {
      throw new IOException("kill -" + name + " of " + serverId(i) + " failed");
    }
  }

  /** Waits until the coordinator counts {@code n} live servers. */
  void awaitLive(int n) throws Exception {
    if (coordinator != null) {
      Await.until(() -> coordinator.servers().size() == n, n + " live servers");
    } else {
      Await.until(
          () -> countServers(server -> "active".equals(server.path("condition").asText())) == n,
          n + " live servers");
    }
  }

  /** A counter or gauge of server {@code i}'s {@code /metrics}, summed over label values. */
  double metric(int i, String name) throws IOException, InterruptedException {
    return MetricsScrape.fetch(servers.get(i).host, servers.get(i).httpPort).sum(name);
  }

  /** Bytes that the running servers took from pushes (clients and replication alike). */
  double pushedBytes() throws IOException, InterruptedException {
    double sum = 0;
    for (int i = 0; i < servers.size(); i++) {
      if (servers.get(i).process.isAlive()) {
        sum += metric(i, "sluice_server_pushed_bytes_total");
      }
    }
    return sum;
  }

  @Override
  public void close() throws IOException {
    List<String> leaks = new ArrayList<>();
    for (Server s : servers) {
      if (s.process != null && s.process.isAlive()) {
        // SIGTERM: the server closes itself (and leak detection has its chance to report).
        s.process.destroy();
        try {
          if (!s.process.waitFor(30, TimeUnit.SECONDS)) {
            s.process.destroyForcibly();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (Files.exists(s.log) && Files.readString(s.log).contains("LEAK:")) {
        leaks.add(s.id + " (" + s.log + ")");
      }
    }
    if (coordinator != null) {
      coordinator.close();
    } else if (coordinatorProcess != null) {
      coordinatorProcess.destroy();
      try {
        if (!coordinatorProcess.waitFor(30, TimeUnit.SECONDS)) {
          coordinatorProcess.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (leaks.isEmpty()) {
      try (Stream<Path> files = Files.walk(root)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    } else {
      throw new AssertionError("buffer leaks reported by " + leaks);
    }
  }
}
