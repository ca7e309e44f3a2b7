package io.sluice.conformance;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A coordinator and two shuffle servers started with the project's own {@code bin/} scripts, as an
 * operator starts them, on free loopback ports, for Spark's suites to shuffle through. Shared by
 * the suites of one JVM: the first {@link #acquire} starts it, the last {@link #release} stops it
 * with the stop scripts. Release fails if nothing was pushed to the servers (the suite did not
 * shuffle through Sluice) or a daemon's log reports a leaked buffer (the daemons run with Netty's
 * paranoid leak detection).
 *
 * <p>Not the test-cluster module's {@code ProcessCluster}: Spark's suites run on Spark's own class
 * path, which holds nothing of Sluice but the shaded client (the daemons' Netty and Jackson would
 * meet Spark's there), on every Spark line these sources are built for.
 */
final class ConformanceCluster {
  private static final int SERVERS = 2;
  private static final Duration START_WAIT = Duration.ofMinutes(2);
  private static final Pattern ACTIVE =
      Pattern.compile("(?m)^sluice_coordinator_servers\\{condition=\"active\",?\\} ([0-9.E]+)$");
  private static final Pattern PUSHED =
      Pattern.compile("(?m)^sluice_server_pushed_bytes_total ([0-9.E]+)$");

  private static ConformanceCluster running;
  private static int users;

  private final Path projectRoot;
  private final Path work;
  private final Map<String, String> env;
  private final List<Path> serverConfs = new ArrayList<>();
  private final List<Integer> serverHttpPorts = new ArrayList<>();
  private final Path coordinatorConf;
  private final String coordinatorAddress;
  private final int coordinatorHttpPort;

  /**
   * A suite's start: checks its list of inapplicable tests against {@code testNames} and acquires
   * the cluster. Returns the coordinator's host:port.
   */
  static String beginSuite(String suite, scala.collection.immutable.Set<String> testNames) {
    InapplicableTests.checkListed(suite, testNames);
    try {
      return acquire();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the Sluice cluster for " + suite, e);
    }
  }

  /** A suite's end: releases the cluster; fails the suite if the cluster's checks fail. */
  static void endSuite(String suite) {
    try {
      release();
    } catch (Exception e) {
      throw new IllegalStateException("the Sluice cluster of " + suite + " failed its checks", e);
    }
  }

  /** Starts the cluster if this is its first user; returns the coordinator's host:port. */
  static synchronized String acquire() throws Exception {
    if (running == null) {
      running = new ConformanceCluster();
      try {
        running.start();
      } catch (Exception e) {
        ConformanceCluster failed = running;
        running = null;
        failed.stop();
        throw e;
      }
    }
    users++;
    return running.coordinatorAddress;
  }

  /** Stops the cluster when its last user leaves. */
  static synchronized void release() throws Exception {
    if (--users == 0 && running != null) {
      ConformanceCluster stopping = running;
      running = null;
      double pushed = stopping.pushedBytes();
      stopping.stop();
      stopping.assertNoLeak();
      if (pushed <= 0) {
        throw new IllegalStateException(
            "nothing was pushed to the Sluice servers: the suite did "
                + "not shuffle through Sluice");
      }
      System.out.printf("The Sluice servers took %,.0f bytes of pushes%n", pushed);
    }
  }

  private ConformanceCluster() throws IOException {
    this.projectRoot = Path.of(System.getProperty("sluice.project.root")).toRealPath();
    Path base = Path.of(System.getProperty("sluice.conformance.work"));
    Files.createDirectories(base);
    this.work = Files.createTempDirectory(base.toAbsolutePath(), "cluster-");
    this.env =
        Map.of(
            "SLUICE_CONF_DIR", work.resolve("conf").toString(),
            "SLUICE_LOG_DIR", work.resolve("logs").toString(),
            "SLUICE_PID_DIR", work.resolve("run").toString(),
            "SLUICE_JAVA_OPTS", "-Dio.netty.leakDetection.level=paranoid",
            "SLUICE_STOP_TIMEOUT", "30");
    Files.createDirectories(work.resolve("conf"));
    // The daemons log as the shipped configuration has them log, into SLUICE_LOG_DIR.
    Files.copy(projectRoot.resolve("conf/log4j2.xml"), work.resolve("conf/log4j2.xml"));
    int[] ports = freePorts(2 + 2 * SERVERS);
    int coordinatorPort = ports[0];
    this.coordinatorHttpPort = ports[1];
    this.coordinatorAddress = "127.0.0.1:" + coordinatorPort;
    this.coordinatorConf =
        write(
            "coordinator.conf",
            String.join(
                "\n",
                "coordinator.bind.host 127.0.0.1",
                "coordinator.port " + coordinatorPort,
                "coordinator.http.port " + coordinatorHttpPort,
                ""));
    for (int i = 0; i < SERVERS; i++) {
      String id = "server-" + i;
      serverHttpPorts.add(ports[3 + 2 * i]);
      serverConfs.add(
          write(
              id + ".conf",
              String.join(
                  "\n",
                  "server.id " + id,
                  "server.bind.host 127.0.0.1",
                  "server.port " + ports[2 + 2 * i],
                  "server.http.port " + ports[3 + 2 * i],
                  "server.coordinators " + coordinatorAddress,
                  "buffer.capacity 256m",
                  "read.buffer.capacity 64m",
                  "transport.receive.memory 64m",
                  "transport.max.connections 256",
                  "local.dirs " + work.resolve(id + "-data"),
                  "disk.min.free 0",
                  "server.drain.timeout 5s",
                  "server.recovery.enabled false",
                  "")));
    }
  }

  private void start() throws Exception {
    script("start-coordinator.sh", coordinatorConf);
    for (Path conf : serverConfs) {
      script("start-server.sh", conf);
    }
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (activeServers() < SERVERS) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the coordinator at "
                + coordinatorAddress
                + " counts "
                + activeServers()
                + " of "
                + SERVERS
                + " servers active after "
                + START_WAIT
                + "; logs in "
                + work.resolve("logs"));
      }
      Thread.sleep(100);
    }
  }

  private void stop() throws Exception {
    Exception first = null;
    for (Path conf : serverConfs) {
      first = tryScript("stop-server.sh", conf, first);
    }
    first = tryScript("stop-coordinator.sh", coordinatorConf, first);
    if (first != null) {
      throw first;
    }
  }

  private Exception tryScript(String script, Path conf, Exception first) {
    try {
      script(script, conf);
      return first;
    } catch (Exception e) {
      if (first != null) {
        first.addSuppressed(e);
        return first;
      }
      return e;
    }
  }

  /** The daemons' logs and this JVM's (Spark's and the client's) hold no leak report. */
  private void assertNoLeak() throws IOException {
    List<Path> logs;
    try (Stream<Path> daemonLogs = Files.list(work.resolve("logs"))) {
      logs = new ArrayList<>(daemonLogs.toList());
    }
    logs.add(work.getParent().resolve("unit-tests.log"));
    for (Path log : logs) {
      if (Files.exists(log) && reportsLeak(log)) {
        throw new IllegalStateException("a leaked buffer was reported in " + log);
      }
    }
  }

  private static boolean reportsLeak(Path log) throws IOException {
    // Latin-1 decodes any byte, so a log line that is not UTF-8 cannot stop the search.
    try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
      return lines.anyMatch(line -> line.contains("LEAK:"));
    }
  }

  /** Runs a bin/ script to completion; fails with its output if it does not exit 0. */
  private void script(String name, Path conf) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
                "bash", projectRoot.resolve("bin").resolve(name).toString(), conf.toString())
            .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    byte[] output = p.getInputStream().readAllBytes();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("bin/" + name + " " + conf + " did not end");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          "bin/"
              + name
              + " "
              + conf
              + " exited "
              + p.exitValue()
              + ":\n"
              + new String(output, StandardCharsets.UTF_8));
    }
  }

  /** The coordinator's count of active servers, from its own metrics; 0 until it answers. */
  private int activeServers() {
    return (int) metric(coordinatorHttpPort, ACTIVE);
  }

  /** Bytes the servers took from pushes (clients and replication alike), from their metrics. */
  private double pushedBytes() {
    double sum = 0;
    for (int port : serverHttpPorts) {
      sum += metric(port, PUSHED);
    }
    return sum;
  }

  /** One sample of a daemon's /metrics; 0 if the daemon does not answer or has no such sample. */
  private static double metric(int httpPort, Pattern sample) {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      Matcher m = sample.matcher(response.body());
      return m.find() ? Double.parseDouble(m.group(1)) : 0;
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  private Path write(String name, String text) throws IOException {
    return Files.writeString(work.resolve("conf").resolve(name), text);
  }

  /** Distinct free ports: each socket stays open until all are picked. */
  private static int[] freePorts(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0);
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }
}
