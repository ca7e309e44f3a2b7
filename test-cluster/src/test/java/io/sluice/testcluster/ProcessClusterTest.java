package io.sluice.testcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.auth.AuthOptions;
import io.sluice.server.ServerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration files a cluster is started from, written before anything runs. */
class ProcessClusterTest {
  @Test
  void serverSettingsReachEveryServerAndReplaceThePresetButNotTheCoordinator(@TempDir Path dir)
      throws Exception {
    try (ProcessCluster cluster =
        ProcessCluster.withScripts(dir, 2, new ProcessCluster.ServerSizing("1g", "256m", "512m"))
            .in(dir.resolve("cluster"))
            .serverSettings(Map.of("flush.direct", "all", "buffer.capacity", "2g"))
            .create()) {
      for (int i = 0; i < 2; i++) {
        List<String> server = Files.readAllLines(dir.resolve("cluster/server-" + i + ".conf"));
        assertTrue(server.contains("flush.direct all"), server.toString());
        // A key may appear once: the caller's setting replaces the preset's.
        assertTrue(server.contains("buffer.capacity 2g"), server.toString());
        assertFalse(server.contains("buffer.capacity 1g"), server.toString());
        assertTrue(
            server.contains(ServerOptions.SERVER_ID.key() + " server-" + i), server.toString());
        assertTrue(
            server.contains(ServerOptions.COORDINATORS.key() + " " + cluster.coordinatorAddress()),
            server.toString());
      }
      List<String> coordinator = Files.readAllLines(dir.resolve("cluster/coordinator.conf"));
      assertFalse(
          coordinator.stream().anyMatch(l -> l.startsWith("flush.direct")), coordinator.toString());
    }
  }

  @Test
  void daemonSettingsReachTheCoordinatorAndEveryServer(@TempDir Path dir) throws Exception {
    try (ProcessCluster cluster =
        ProcessCluster.forTests(1)
            .in(dir)
            .daemonSettings(Map.of(AuthOptions.ENABLED.key(), "true"))
            .create()) {
      assertEquals(1, cluster.size());
      assertTrue(
          Files.readAllLines(dir.resolve("coordinator.conf"))
              .contains(AuthOptions.ENABLED.key() + " true"));
      assertTrue(
          Files.readAllLines(dir.resolve("server-0.conf"))
              .contains(AuthOptions.ENABLED.key() + " true"));
    }
  }
}
