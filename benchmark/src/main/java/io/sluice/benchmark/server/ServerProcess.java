package io.sluice.benchmark.server;

import io.sluice.benchmark.MetricsPoller;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.fixtures.Daemons;
import io.sluice.server.ServerJvmOptions;
import io.sluice.server.ServerOptions;
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
  private final Path logFile;
  private final Map<String, String> env;
  private final int port;
  private final int httpPort;
  private final long directMemoryLimit;
  private final long bufferCapacity;
  private final long readCapacity;
  private final Path recording;
  private final long pid;

  private ServerProcess(
      Path home,
      Path conf,
      Path dataDir,
      Path logFile,
      Map<String, String> env,
      int port,
      int httpPort,
      SluiceConf parsed,
      Path recording,
      long pid) {
    this.home = home;
    this.conf = conf;
    this.dataDir = dataDir;
    this.logFile = logFile;
    this.env = env;
    this.port = port;
    this.httpPort = httpPort;
    this.directMemoryLimit = ServerJvmOptions.maxDirectMemory(parsed);
    this.bufferCapacity = parsed.get(ServerOptions.BUFFER_CAPACITY);
    this.readCapacity = parsed.get(ServerOptions.READ_BUFFER_CAPACITY);
    this.recording = recording;
    this.pid = pid;
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
    Path logDir = Files.createDirectories(workDir.resolve("logs"));
    Path pidDir = Files.createDirectories(workDir.resolve("run"));
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

    Map<String, String> env =
        Map.of(
            "SLUICE_PID_DIR", pidDir.toAbsolutePath().toString(),
            "SLUICE_LOG_DIR", logDir.toAbsolutePath().toString(),
            "SLUICE_JAVA_OPTS",
                (extraServerJavaOptions()
                        + (recording == null
                            ? ""
                            : " -XX:StartFlightRecording=filename="
                                + recording.toAbsolutePath()
                                + ",settings=profile,dumponexit=true"))
                    .trim());
    Daemons.in(home).script("start-server.sh", conf, env);
    Path pidFile = pidDir.resolve("server-" + name + ".pid");
    long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim());
    ServerProcess server =
        new ServerProcess(
            home,
            conf,
            dataDir,
            logDir.resolve("server-" + name + ".log"),
            env,
            port,
            httpPort,
            parsed,
            recording,
            pid);
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

  long pid() {
    return pid;
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
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /**
   * Has the server's JVM run a full collection ({@code jcmd <pid> GC.run}, a stop-the-world
   * collection with G1 that is done when jcmd returns), so that its heap gauge shows live objects.
   */
  void collectGarbage() throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Daemons.Result result =
        Daemons.in(home)
            .run(Map.of(), Duration.ofSeconds(60), jcmd.toString(), Long.toString(pid), "GC.run");
    if (result.exitCode() != 0) {
      throw new IOException("jcmd " + pid + " GC.run failed: " + result.output());
    }
  }

  /** The server JVM's command line, as the operating system reports it. */
  String commandLine() {
    return ProcessHandle.of(pid).flatMap(p -> p.info().commandLine()).orElse("unknown");
  }

  Optional<Path> recording() {
    return recording != null && Files.exists(recording) ? Optional.of(recording) : Optional.empty();
  }

  /** Stops the server; its flight recording, if any, is written by then. */
  @Override
  public void close() throws IOException, InterruptedException {
    Daemons.in(home).script("stop-server.sh", conf, env);
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
                  + tail(logFile.resolveSibling(logFile.getFileName() + ".out")));
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
    return "server " + HOST + ":" + port + " (pid " + pid + ")";
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
