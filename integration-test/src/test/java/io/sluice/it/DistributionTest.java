package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Await;
import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.MetricsScrape;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution tarball ({@code dist/target/sluice-<version>-bin.tar.gz}) holds what an operator
 * needs and runs on its own: unpacked outside the build tree, its scripts start a coordinator and a
 * server from its lib/, the server registers, and both stop; its container entry point runs each
 * daemon in the foreground.
 */
class DistributionTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  /** Unpacks the distribution tarball into the test's directory; returns its top directory. */
  private Path unpack() throws Exception {
    Daemons.Result untar =
        Daemons.inProject()
            .run(
                Map.of(), "tar", "-xzf", Artifacts.distribution().toString(), "-C", dir.toString());
    assertEquals(0, untar.exitCode(), untar.output());
    try (Stream<Path> unpacked = Files.list(dir)) {
      List<Path> homes =
          unpacked.filter(p -> p.getFileName().toString().startsWith("sluice-")).toList();
      assertEquals(1, homes.size(), "one top-level directory: " + homes);
      return homes.get(0);
    }
  }

  private Path coordinatorConf(int port, int httpPort) throws Exception {
    return Files.writeString(
        dir.resolve("coordinator.conf"),
        String.join(
            "\n",
            "coordinator.bind.host 127.0.0.1",
            "coordinator.port " + port,
            "coordinator.http.port " + httpPort,
            ""));
  }

  private Path serverConf(int port, int httpPort, int coordinatorPort) throws Exception {
    return Files.writeString(
        dir.resolve("server.conf"),
        String.join(
            "\n",
            "server.bind.host 127.0.0.1",
            "server.port " + port,
            "server.http.port " + httpPort,
            "server.coordinators 127.0.0.1:" + coordinatorPort,
            "local.dirs " + dir.resolve("data"),
            "disk.min.free 0",
            "buffer.capacity 64m",
            "read.buffer.capacity 16m",
            ""));
  }

  /**
   * The distribution's {@code conf/<name>} copied into {@code confDir}, with the values of the
   * given keys replaced (every key must be in the file).
   */
  private static Path shippedConf(Path home, Path confDir, String name, Map<String, Object> values)
      throws Exception {
    List<String> lines = new ArrayList<>();
    Set<String> replaced = new HashSet<>();
    for (String line : Files.readAllLines(home.resolve("conf").resolve(name))) {
      String key = line.split(" ", 2)[0];
      if (values.containsKey(key)) {
        line = key + " " + values.get(key);
        replaced.add(key);
      }
      lines.add(line);
    }
    assertEquals(values.keySet(), replaced, "keys of the shipped " + name);
    return Files.write(confDir.resolve(name), lines);
  }

  private Map<String, String> env() {
    return Map.of(
        "SLUICE_LOG_DIR",
        dir.resolve("logs").toString(),
        "SLUICE_PID_DIR",
        dir.resolve("run").toString(),
        "SLUICE_SERVER_HEAP",
        "256m",
        "SLUICE_COORDINATOR_HEAP",
        "256m");
  }

  @Test
  void theTarballRunsACoordinatorAndAServerWithoutTheBuildTree() throws Exception {
    Path home = unpack();
    for (String file :
        List.of(
            "bin/start-server.sh",
            "bin/stop-server.sh",
            "bin/status-server.sh",
            "bin/start-coordinator.sh",
            "bin/stop-coordinator.sh",
            "bin/status-coordinator.sh",
            "bin/sluice-admin",
            "bin/sluice-container.sh")) {
      assertTrue(Files.isExecutable(home.resolve(file)), file);
    }
    for (String file :
        List.of(
            "conf/server.conf",
            "conf/coordinator.conf",
            "conf/log4j2.xml",
            "docs/configuration.md",
            "deploy/grafana/sluice.json",
            "deploy/kubernetes/server.yaml",
            "deploy/docker/Dockerfile",
            "README.md")) {
      assertTrue(Files.isRegularFile(home.resolve(file)), file);
    }
    for (String buildFile : List.of("deploy/pom.xml", "deploy/src", "deploy/target")) {
      assertFalse(
          Files.exists(home.resolve(buildFile)), buildFile + " is the build's, not shipped");
    }
    try (Stream<Path> client = Files.list(home.resolve("lib/client"))) {
      assertEquals(
          List.of(
              "sluice-client-spark-3.3_2.12",
              "sluice-client-spark-3.4_2.12",
              "sluice-client-spark-3.5_2.12",
              "sluice-client-spark-4_2.13"),
          client
              .map(f -> f.getFileName().toString())
              .filter(name -> name.endsWith("-shaded.jar"))
              .map(name -> name.substring(0, name.indexOf("_2.1") + 5))
              .sorted()
              .toList(),
          "one shaded Spark client per Spark line");
    }

    // The shipped conf/ as it is (authentication on, secrets beside it), but for ports and
    // directories of this test's own.
    int coordinatorPort = Daemons.freePort();
    int coordinatorHttp = Daemons.freePort();
    int serverPort = Daemons.freePort();
    int serverHttp = Daemons.freePort();
    Path confDir = Files.createDirectories(dir.resolve("conf"));
    Path coordinatorConf =
        shippedConf(
            home,
            confDir,
            "coordinator.conf",
            Map.of("coordinator.port", coordinatorPort, "coordinator.http.port", coordinatorHttp));
    Path serverConf =
        shippedConf(
            home,
            confDir,
            "server.conf",
            Map.of(
                "server.port",
                serverPort,
                "server.http.port",
                serverHttp,
                "server.coordinators",
                "127.0.0.1:" + coordinatorPort,
                "local.dirs",
                dir.resolve("data"),
                "disk.min.free",
                0,
                "buffer.capacity",
                "64m",
                "read.buffer.capacity",
                "16m"));
    Map<String, String> env = new HashMap<>(env());
    env.put("SLUICE_CONF_DIR", confDir.toString());
    String bin = home.resolve("bin") + "/";
    try {
      Daemons.Result coordinator = Daemons.inProject().run(env, bin + "start-coordinator.sh");
      assertEquals(0, coordinator.exitCode(), coordinator.output());
      for (String secret : List.of("cluster.secret", "admin.token")) {
        assertTrue(
            coordinator
                .output()
                .contains("sluice: created a new secret in " + confDir.resolve(secret)),
            coordinator.output());
        assertEquals(
            "rw-------",
            PosixFilePermissions.toString(Files.getPosixFilePermissions(confDir.resolve(secret))),
            secret);
      }
      Daemons.Result server = Daemons.inProject().run(env, bin + "start-server.sh");
      assertEquals(0, server.exitCode(), server.output());
      assertFalse(
          server.output().contains("created a new secret"),
          "the server uses the coordinator's secret: " + server.output());
      assertTrue(server.output().contains("port " + serverPort), server.output());
      Daemons.Result status =
          Daemons.inProject().run(env, bin + "status-server.sh", serverConf.toString());
      assertEquals(0, status.exitCode(), status.output());

      Await.until(
          () -> {
            try {
              return MetricsScrape.fetch(coordinatorHttp).sum("sluice_coordinator_servers") == 1;
            } catch (Exception e) {
              return false;
            }
          },
          "the server registered with the coordinator");
      // Address and admin token from the configuration (authentication on: no token, no call).
      Daemons.Result servers = Daemons.inProject().run(env, bin + "sluice-admin", "servers");
      assertEquals(0, servers.exitCode(), servers.output());
      assertTrue(
          servers.output().startsWith("SERVER ")
              && servers.output().contains(":" + serverPort + " ")
              && servers.output().endsWith("1 server\n"),
          servers.output());
      Daemons.Result draining =
          Daemons.inProject().run(env, bin + "sluice-admin", "--json", "drain-status");
      assertEquals("[]\n", draining.output());
    } finally {
      Daemons.inProject().run(env, bin + "stop-server.sh", serverConf.toString());
      Daemons.inProject().run(env, bin + "stop-coordinator.sh", coordinatorConf.toString());
    }
    Daemons.Result stopped =
        Daemons.inProject().run(env, bin + "status-server.sh", serverConf.toString());
    assertEquals(3, stopped.exitCode(), "stopped: " + stopped.output());
  }

  /**
   * The container image's entry point, as deploy/docker/Dockerfile and deploy/kubernetes run it:
   * each daemon becomes the process itself (no script in between, so SIGTERM reaches the JVM), a
   * server takes the advertised host and id from the environment, and both answer {@code /ready}.
   */
  @Test
  void theContainerEntryPointRunsEachDaemonAsItsOwnProcess() throws Exception {
    Path home = unpack();
    String entry = home.resolve("bin/sluice-container.sh").toString();
    Daemons.Result usage = Daemons.inProject().run(Map.of(), entry, "scheduler");
    assertEquals(2, usage.exitCode(), usage.output());
    assertTrue(usage.output().contains("coordinator|server"), usage.output());

    int coordinatorPort = Daemons.freePort();
    int coordinatorHttp = Daemons.freePort();
    int serverHttp = Daemons.freePort();
    Path coordinatorConf = coordinatorConf(coordinatorPort, coordinatorHttp);
    Path serverConf = serverConf(0, serverHttp, coordinatorPort);
    Map<String, String> env = env();
    Map<String, String> podEnv = new HashMap<>(env);
    podEnv.put("SLUICE_ADVERTISED_HOST", "localhost");
    podEnv.put("SLUICE_SERVER_ID", "sluice-server-0");
    podEnv.put("SLUICE_NODE", "worker-node-7");
    Daemons.Running coordinator =
        Daemons.inProject().start(env, entry, "coordinator", coordinatorConf.toString());
    Daemons.Running server = null;
    try {
      awaitReady(coordinatorHttp, coordinator);
      server = Daemons.inProject().start(podEnv, entry, "server", serverConf.toString());
      awaitReady(serverHttp, server);
      for (Daemons.Running daemon : List.of(coordinator, server)) {
        String command = daemon.handle().info().command().orElse("");
        assertTrue(command.endsWith("/java"), "the daemon replaced the script: " + command);
      }
      Await.until(
          () -> {
            String status = get(coordinatorHttp, "/status");
            return status.contains("\"id\":\"sluice-server-0\"")
                && status.contains("\"host\":\"localhost\"")
                && status.contains("\"node\":\"worker-node-7\"");
          },
          "the server registered under its pod's id, name and node");

      server.handle().destroy();
      Daemons.Result stopped = server.await(Duration.ofSeconds(100));
      assertTrue(stopped.output().contains("sluice-server-0"), stopped.output());
      assertTrue(
          Files.notExists(dir.resolve("run")) || listing(dir.resolve("run")).isEmpty(),
          "a foreground daemon leaves no pid file");
    } finally {
      if (server != null) {
        server.kill();
      }
      coordinator.kill();
    }
  }

  private static String listing(Path directory) throws Exception {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(Path::toString).reduce("", String::concat);
    }
  }

  private static void awaitReady(int httpPort, Daemons.Running daemon) throws Exception {
    Await.until(
        () -> {
          if (!daemon.isAlive()) {
            throw new AssertionError("the daemon ended before it was ready");
          }
          return get(httpPort, "/ready").equals("ready\n");
        },
        "ready on HTTP port " + httpPort);
  }

  private static String get(int httpPort, String path) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
              HttpResponse.BodyHandlers.ofString());
      return response.body();
    } catch (Exception e) {
      return "";
    }
  }
}
