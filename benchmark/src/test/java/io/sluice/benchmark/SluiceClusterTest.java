package io.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration files a benchmark cluster is started from. */
class SluiceClusterTest {
  @Test
  void serverSettingsReachEveryServerAndOverrideTheHarnessButNotTheCoordinator(@TempDir Path dir)
      throws Exception {
    try (SluiceCluster cluster =
        new SluiceCluster(
            dir,
            dir.resolve("cluster"),
            2,
            new SluiceCluster.ServerSizing("1g", "256m", "512m"),
            Map.of(),
            Map.of("flush.direct", "all", "buffer.capacity", "2g"))) {
      for (int i = 1; i <= 2; i++) {
        List<String> server = Files.readAllLines(dir.resolve("cluster/server-" + i + ".conf"));
        assertTrue(server.contains("flush.direct all"), server.toString());
        // A key may appear once: the extra setting replaces the harness's.
        assertTrue(server.contains("buffer.capacity 2g"), server.toString());
        assertFalse(server.contains("buffer.capacity 1g"), server.toString());
      }
      List<String> coordinator = Files.readAllLines(dir.resolve("cluster/coordinator.conf"));
      assertFalse(
          coordinator.stream().anyMatch(l -> l.startsWith("flush.direct")), coordinator.toString());
    }
  }
}
