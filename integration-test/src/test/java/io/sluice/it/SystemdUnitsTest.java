package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import io.sluice.fixtures.ProjectRoot;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The systemd units under deploy/systemd: valid for systemd ({@code systemd-analyze verify}, no
 * warning), and their commands do what systemd expects of a forking service: ExecStart, run with
 * the unit's environment, returns once the daemon serves, leaving the PIDFile the unit names with
 * the daemon's pid; ExecStop stops that process. The installation paths (/opt/sluice, /etc/sluice,
 * /run, /var/log) are rewritten to this checkout and a temporary directory, as an operator
 * installing elsewhere would edit them.
 */
class SystemdUnitsTest {
  @TempDir Path dir;

  @Test
  void theServerUnitIsValidAndItsCommandsStartAndStopTheServer() throws Exception {
    int port = Daemons.freePort();
    checkUnit(
        "server",
        port,
        List.of(
            "server.bind.host 127.0.0.1",
            "server.port " + port,
            "server.http.port " + Daemons.freePort(),
            "local.dirs " + dir.resolve("data"),
            "disk.min.free 0",
            "buffer.capacity 64m",
            "read.buffer.capacity 16m"),
        Map.of("SLUICE_SERVER_HEAP", "256m"));
  }

  @Test
  void theCoordinatorUnitIsValidAndItsCommandsStartAndStopTheCoordinator() throws Exception {
    int port = Daemons.freePort();
    checkUnit(
        "coordinator",
        port,
        List.of(
            "coordinator.bind.host 127.0.0.1",
            "coordinator.port " + port,
            "coordinator.http.port " + Daemons.freePort()),
        Map.of("SLUICE_COORDINATOR_HEAP", "256m"));
  }

  private void checkUnit(String kind, int port, List<String> settings, Map<String, String> heap)
      throws Exception {
    Path etc = Files.createDirectories(dir.resolve("etc"));
    Files.writeString(etc.resolve(kind + ".conf"), String.join("\n", settings) + "\n");
    String unit =
        Files.readString(ProjectRoot.get().resolve("deploy/systemd/sluice-" + kind + ".service"))
            .replace("/opt/sluice", ProjectRoot.get().toString())
            .replace("/etc/sluice", etc.toString())
            .replace("/run/", dir.resolve("run") + "/")
            .replace("/var/log/", dir.resolve("log") + "/");
    Path unitFile = dir.resolve("sluice-" + kind + ".service");
    Files.writeString(unitFile, unit);

    verify(unitFile);

    Map<String, String> env = new HashMap<>(heap);
    List<String> start = null;
    List<String> stop = null;
    Path pidFile = null;
    for (String line : unit.lines().toList()) {
      if (line.startsWith("Environment=")) {
        String[] kv = line.substring("Environment=".length()).split("=", 2);
        env.put(kv[0], kv[1]);
      } else if (line.startsWith("ExecStart=")) {
        start = List.of(line.substring("ExecStart=".length()).split(" "));
      } else if (line.startsWith("ExecStop=")) {
        stop = List.of(line.substring("ExecStop=".length()).split(" "));
      } else if (line.startsWith("PIDFile=")) {
        pidFile = Path.of(line.substring("PIDFile=".length()));
      }
    }
    assertTrue(start != null && stop != null && pidFile != null, unit);
    // What systemd makes for the unit before starting it: its runtime and logs directories.
    Files.createDirectories(pidFile.getParent());
    Files.createDirectories(Path.of(env.get("SLUICE_LOG_DIR")));

    Daemons.Result started = Daemons.inProject().run(env, start.toArray(String[]::new));
    assertEquals(0, started.exitCode(), started.output());
    assertTrue(
        Files.exists(pidFile),
        "ExecStart left the unit's PIDFile " + pidFile + ": " + started.output());
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    try {
      assertTrue(Daemons.alive(pid), "the PIDFile names the running daemon");
      // ExecStart returned once the daemon served: no waiting here.
      new Socket("127.0.0.1", port).close();
    } finally {
      Daemons.Result stopped = Daemons.inProject().run(env, stop.toArray(String[]::new));
      assertEquals(0, stopped.exitCode(), stopped.output());
    }
    assertTrue(
        ProcessHandle.of(pid)
            .map(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join())
            .map(p -> !p.isAlive())
            .orElse(true),
        "ExecStop stopped the daemon");
    assertFalse(Daemons.alive(pid));
  }

  /** {@code systemd-analyze verify}: exit 0 and not a word of warning. */
  private void verify(Path unitFile) throws Exception {
    Daemons.Result which =
        Daemons.inProject().run(Map.of(), "sh", "-c", "command -v systemd-analyze");
    Assumptions.assumeTrue(
        which.exitCode() == 0, "systemd-analyze (Debian package systemd) is not installed here");
    List<String> command =
        new ArrayList<>(List.of("systemd-analyze", "verify", unitFile.toString()));
    Daemons.Result verified = Daemons.inProject().run(Map.of(), command.toArray(String[]::new));
    assertEquals(0, verified.exitCode(), verified.output());
    assertEquals("", verified.output().strip(), "systemd-analyze verify warns");
  }
}
