package io.sluice.benchmark.server;

import io.sluice.benchmark.MetricsPoller;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.fixtures.Daemons;
import io.sluice.server.ServerJvmOptions;
import io.sluice.server.ServerOptions;
import io.sluice.testcluster.Daemon;
import io.sluice.testcluster.DaemonLauncher;
import io.sluice.testcluster.ScriptLauncher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A shuffle server in a JVM of its own, started and stopped with {@code bin/start-server.sh} and
 * {@code bin/stop-server.sh} as an operator would, so that its heap, direct memory and GC are its
 * own and sized the way the scripts size them. Its configuration file, data, logs and pid file live
 * in a work directory; ports are picked free on 127.0.0.1.
 */
final class ServerProcess implements AutoCloseable {
  static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Path home;
  private final Path conf;
  private final Path dataDir;
  private final Daemon daemon;
  private final int port;
  private final int httpPort;
  private final long directMemoryLimit;
  private final long bufferCapacity;
  private final long readCapacity;
  private final Path recording;

  private ServerProcess(
      Path home,
      Path conf,
      Path dataDir,
      Daemon daemon,
      int port,
      int httpPort,
      SluiceConf parsed,
      Path recording) {
    this.home = home;
    this.conf = conf;
    this.dataDir = dataDir;
    this.daemon = daemon;
    this.port = port;
    this.httpPort = httpPort;
    this.directMemoryLimit = ServerJvmOptions.maxDirectMemory(parsed);
    this.bufferCapacity = parsed.get(ServerOptions.BUFFER_CAPACITY);
    this.readCapacity = parsed.get(ServerOptions.READ_BUFFER_CAPACITY);
    this.recording = recording;
  }

  /**
   * Writes {@code <workDir>/<name>.conf} and starts the server on it.
   *
   * @param home the Sluice installation whose {@code bin/} scripts and built jars are used
   * @param recording where the server writes a flight recording when it stops, or null for none
   */
  static ServerProcess start(
      Path home, Path workDir, String name, long bufferCapacity, long readCapacity, Path recording)
      throws IOException, InterruptedException {
    return start(home, workDir, name, bufferCapacity, readCapacity, recording, Map.of());
  }

  /** The same, with {@code extra} keys and values added to the configuration file. */
  static ServerProcess start(
      Path home,
      Path workDir,
      String name,
      long bufferCapacity,
      long readCapacity,
      Path recording,
      Map<String, String> extra)
      throws IOException, InterruptedException {
    Path dataDir = Files.createDirectories(workDir.resolve(name + "-data"));
    int port = Daemons.freePort();
    int httpPort = Daemons.freePort();
    Path conf = workDir.resolve(name + ".conf");
    List<String> lines =
        new ArrayList<>(
            List.of(
                "# Written by the server benchmark; started with bin/start-server.sh.",
                ServerOptions.BIND_HOST.key() + " " + HOST,
                ServerOptions.PORT.key() + " " + port,
                ServerOptions.HTTP_PORT.key() + " " + httpPort,
                ServerOptions.BUFFER_CAPACITY.key() + " " + bufferCapacity,
                ServerOptions.READ_BUFFER_CAPACITY.key() + " " + readCapacity,
                ServerOptions.LOCAL_DIRS.key() + " " + dataDir.toAbsolutePath(),
                // The benchmark sends no application heartbeats; its runs must not expire mid-way.
                ServerOptions.APP_EXPIRY.key() + " 1h"));
    extra.forEach((key, value) -> lines.add(key + " " + value));
    Files.write(conf, lines, StandardCharsets.UTF_8);
    SluiceConf parsed = ConfigLoader.load(conf, Map.of(), ConfigDocGenerator.discover());

    String javaOptions =
        extraServerJavaOptions()
            + (recording == null
                ? ""
                : " -XX:StartFlightRecording=filename="
                    + recording.toAbsolutePath()
                    + ",settings=profile,dumponexit=true");
    Daemon daemon =
        new ScriptLauncher(home, null, javaOptions.trim())
            .start(DaemonLauncher.Role.SERVER, conf, workDir.toAbsolutePath(), List.of());
    ServerProcess server =
        new ServerProcess(home, conf, dataDir, daemon, port, httpPort, parsed, recording);
    server.awaitServing();
    return server;
  }

  /** {@code SLUICE_BENCH_SERVER_JAVA_OPTS}: extra options of the servers' JVMs, a profiler say. */
  private static String extraServerJavaOptions() {
    String options = System.getenv("SLUICE_BENCH_SERVER_JAVA_OPTS");
    return options == null ? "" : options;
  }

  int port() {
    return port;
  }

  int httpPort() {
    return httpPort;
  }

  Path dataDir() {
    return dataDir;
  }

  long bufferCapacity() {
    return bufferCapacity;
  }

  long readCapacity() {
    return readCapacity;
  }

  /** {@code -XX:MaxDirectMemorySize} as the start script sets it: the two budgets plus overhead. */
  long directMemoryLimit() {
    return directMemoryLimit;
  }

  boolean isAlive() {
    return daemon.isAlive();
  }

  /**
   * Has the server's JVM run a full collection ({@code jcmd <pid> GC.run}, a stop-the-world
   * collection with G1 that is done when jcmd returns), so that its heap gauge shows live objects.
   */
  void collectGarbage() throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Daemons.Result result =
        Daemons.in(home)
            .run(
                Map.of(),
                Duration.ofSeconds(60),
                jcmd.toString(),
                Long.toString(daemon.pid()),
                "GC.run");
    if (result.exitCode() != 0) {
      throw new IOException("jcmd " + daemon.pid() + " GC.run failed: " + result.output());
    }
  }

  /** The server JVM's command line, as the operating system reports it. */
  String commandLine() {
    return ProcessHandle.of(daemon.pid()).flatMap(p -> p.info().commandLine()).orElse("unknown");
  }

  Optional<Path> recording() {
    return recording != null && Files.exists(recording) ? Optional.of(recording) : Optional.empty();
  }

  /** Stops the server; its flight recording, if any, is written by then. */
  @Override
  public void close() throws IOException, InterruptedException {
    daemon.stop();
  }

  private void awaitServing() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    MetricsPoller probe =
        new MetricsPoller(List.of(httpPort), List.of(MetricsPoller.PUSHED), Duration.ofMillis(100));
    while (true) {
      try {
        probe.scrape(0);
        return;
      } catch (IOException e) {
        if (!isAlive()) {
          throw new IOException(
              "the server exited during start-up; the end of its log:\n"
                  + tail(daemon.log().resolveSibling(daemon.log().getFileName() + ".out")));
        }
        if (System.nanoTime() > deadline) {
          close();
          throw new IOException(
              "the server did not answer on HTTP port "
                  + httpPort
                  + " within "
                  + START_TIMEOUT.toSeconds()
                  + " s",
              e);
        }
        Thread.sleep(100);
      }
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }

  @Override
  public String toString() {
    return "server " + HOST + ":" + port + " (pid " + daemon.pid() + ")";
  }

  /** Lines of the conf the server was started with, for the report. */
  List<String> confLines() throws IOException {
    List<String> settings = new ArrayList<>();
    for (String line : Files.readAllLines(conf, StandardCharsets.UTF_8)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        settings.add(line);
      }
    }
    return settings;
  }
}
