package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/start-coordinator.sh starts a real coordinator process that answers on its port and serves
 * /metrics and /status; a second start is refused; bin/stop-coordinator.sh stops it.
 */
class CoordinatorScriptTest {
  @TempDir Path dir;

  @Test
  void startServesMetricsAndStatusRefusesASecondStartAndStops() throws Exception {
    int port = Daemons.freePort();
    int httpPort = Daemons.freePort();
    Path conf = dir.resolve("coordinator-it.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "# written by CoordinatorScriptTest",
            "coordinator.bind.host 127.0.0.1",
            "coordinator.port " + port,
            "coordinator.http.port " + httpPort,
            "coordinator.server.heartbeat.timeout 10s",
            "transport.server.threads 1",
            ""));
    Map<String, String> env = env();
    Path log = dir.resolve("logs/coordinator-coordinator-it.log");
    Path pidFile = dir.resolve("run/coordinator-coordinator-it.pid");

    Daemons.Result start =
        Daemons.inProject().run(env, "bin/start-coordinator.sh", conf.toString());
    assertEquals(0, start.exitCode(), start.output());
    assertTrue(start.output().contains("port " + port + ", http.port " + httpPort), start.output());
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    try {
      // The script said "started" only once both ports listen: no waiting here.
      new Socket("127.0.0.1", port).close();
      new Socket("127.0.0.1", httpPort).close();
      Daemons.Result running =
          Daemons.inProject().run(env, "bin/status-coordinator.sh", conf.toString());
      assertEquals(0, running.exitCode(), running.output());
      assertTrue(
          running.output().contains("is running (pid " + pid + ", port " + port), running.output());
      String cmdline =
          ProcessHandle.of(pid)
              .flatMap(h -> h.info().arguments())
              .map(a -> String.join(" ", a))
              .orElse("");
      assertTrue(cmdline.contains("-Xmx256m"), cmdline);

      HttpResponse<String> metrics = get(httpPort, "/metrics");
      assertEquals(200, metrics.statusCode());
      assertTrue(
          metrics.body().contains("sluice_coordinator_servers{condition=\"active\",} 0.0"),
          metrics.body());
      HttpResponse<String> status = get(httpPort, "/status");
      assertEquals(200, status.statusCode());
      assertTrue(status.body().contains("\"servers\":[]"), status.body());
      assertTrue(status.body().contains("\"heartbeatTimeoutMillis\":10000"), status.body());

      Daemons.Result again =
          Daemons.inProject().run(env, "bin/start-coordinator.sh", conf.toString());
      assertNotEquals(0, again.exitCode());
      assertTrue(again.output().contains("already running"), again.output());
    } finally {
      Daemons.Result stop =
          Daemons.inProject().run(env, "bin/stop-coordinator.sh", conf.toString());
      assertEquals(0, stop.exitCode(), stop.output());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (Daemons.alive(pid) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertFalse(Daemons.alive(pid), "coordinator process should be gone");
    assertFalse(Files.exists(pidFile));
    Daemons.Result stopped =
        Daemons.inProject().run(env, "bin/status-coordinator.sh", conf.toString());
    assertEquals(3, stopped.exitCode(), stopped.output());
    String logText = Files.readString(log);
    assertTrue(
        logText.contains("Coordinator ") && logText.contains(" started: port " + port), logText);
    assertTrue(logText.contains(" stopped"), logText);
  }

  @Test
  void invalidConfigurationFailsAtStartNamingTheKey() throws Exception {
    Path conf = dir.resolve("bad.conf");
    Files.writeString(conf, "coordinator.port 19997\ncoordinator.server.heartbeat.timeout soon\n");

    Daemons.Result start =
        Daemons.inProject().run(env(), "bin/start-coordinator.sh", conf.toString());

    assertNotEquals(0, start.exitCode());
    assertTrue(start.output().contains("coordinator.server.heartbeat.timeout"), start.output());
    assertTrue(start.output().contains("soon"), start.output());
  }

  private Map<String, String> env() {
    return Map.of(
        "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
        "SLUICE_PID_DIR", dir.resolve("run").toString(),
        "SLUICE_COORDINATOR_HEAP", "256m");
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
