package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution tarball ({@code dist/target/sluice-<version>-bin.tar.gz}) holds what an operator
 * needs and runs on its own: unpacked outside the build tree, its scripts start a coordinator and a
 * server from its lib/, the server registers, and both stop.
 */
class DistributionTest {
  @TempDir Path dir;

  @Test
  void theTarballRunsACoordinatorAndAServerWithoutTheBuildTree() throws Exception {
    Daemons.Result untar = Daemons.run(dir, Map.of(), "tar", "-xzf",
        Artifacts.distribution().toString(), "-C", dir.toString());
    assertEquals(0, untar.exitCode(), untar.output());
    Path home;
    try (Stream<Path> unpacked = Files.list(dir)) {
      List<Path> homes = unpacked.filter(p -> p.getFileName().toString().startsWith("sluice-"))
          .toList();
      assertEquals(1, homes.size(), "one top-level directory: " + homes);
      home = homes.get(0);
    }
    for (String file : List.of("bin/start-server.sh", "bin/stop-server.sh", "bin/status-server.sh",
        "bin/start-coordinator.sh", "bin/stop-coordinator.sh", "bin/status-coordinator.sh",
        "bin/sluice-admin")) {
      assertTrue(Files.isExecutable(home.resolve(file)), file);
    }
    for (String file : List.of("conf/server.conf", "conf/coordinator.conf", "conf/log4j2.xml",
        "docs/configuration.md", "deploy/grafana/sluice.json", "README.md")) {
      assertTrue(Files.isRegularFile(home.resolve(file)), file);
    }
    try (Stream<Path> client = Files.list(home.resolve("lib/client"))) {
      assertEquals(List.of("sluice-client-spark-3.3_2.12", "sluice-client-spark-3.4_2.12",
          "sluice-client-spark-3.5_2.12", "sluice-client-spark-4_2.13"),
          client.map(f -> f.getFileName().toString())
              .filter(name -> name.endsWith("-shaded.jar"))
              .map(name -> name.substring(0, name.indexOf("_2.1") + 5)).sorted().toList(),
          "one shaded Spark client per Spark line");
    }

    int coordinatorPort = Daemons.freePort();
    int coordinatorHttp = Daemons.freePort();
    int serverPort = Daemons.freePort();
    int serverHttp = Daemons.freePort();
    Path coordinatorConf = Files.writeString(dir.resolve("coordinator.conf"), String.join("\n",
        "coordinator.bind.host 127.0.0.1",
        "coordinator.port " + coordinatorPort,
        "coordinator.http.port " + coordinatorHttp,
        ""));
    Path serverConf = Files.writeString(dir.resolve("server.conf"), String.join("\n",
        "server.bind.host 127.0.0.1",
        "server.port " + serverPort,
        "server.http.port " + serverHttp,
        "server.coordinators 127.0.0.1:" + coordinatorPort,
        "local.dirs " + dir.resolve("data"),
        "disk.min.free 0",
        "buffer.capacity 64m",
        "read.buffer.capacity 16m",
        ""));
    Map<String, String> env = Map.of(
        "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
        "SLUICE_PID_DIR", dir.resolve("run").toString(),
        "SLUICE_SERVER_HEAP", "256m",
        "SLUICE_COORDINATOR_HEAP", "256m");
    String bin = home.resolve("bin") + "/";
    try {
      Daemons.Result coordinator = Daemons.run(dir, env, bin + "start-coordinator.sh",
          coordinatorConf.toString());
      assertEquals(0, coordinator.exitCode(), coordinator.output());
      Daemons.Result server = Daemons.run(dir, env, bin + "start-server.sh",
          serverConf.toString());
      assertEquals(0, server.exitCode(), server.output());
      assertTrue(server.output().contains("port " + serverPort), server.output());
      Daemons.Result status = Daemons.run(dir, env, bin + "status-server.sh",
          serverConf.toString());
      assertEquals(0, status.exitCode(), status.output());

      ProcessCluster.await(() -> {
        try {
          return MetricsScrape.fetch(coordinatorHttp).sum("sluice_coordinator_servers") == 1;
        } catch (Exception e) {
          return false;
        }
      }, "the server registered with the coordinator");
      Daemons.Result servers = Daemons.run(dir, env, bin + "sluice-admin", "--coordinator",
          "127.0.0.1:" + coordinatorHttp, "servers");
      assertEquals(0, servers.exitCode(), servers.output());
      assertTrue(servers.output().startsWith("SERVER ")
          && servers.output().contains(":" + serverPort + " ")
          && servers.output().endsWith("1 server\n"), servers.output());
      Daemons.Result draining = Daemons.run(dir, env, bin + "sluice-admin", "--coordinator",
          "127.0.0.1:" + coordinatorHttp, "--json", "drain-status");
      assertEquals("[]\n", draining.output());
    } finally {
      Daemons.run(dir, env, bin + "stop-server.sh", serverConf.toString());
      Daemons.run(dir, env, bin + "stop-coordinator.sh", coordinatorConf.toString());
    }
    Daemons.Result stopped = Daemons.run(dir, env, bin + "status-server.sh",
        serverConf.toString());
    assertEquals(3, stopped.exitCode(), "stopped: " + stopped.output());
  }
}
