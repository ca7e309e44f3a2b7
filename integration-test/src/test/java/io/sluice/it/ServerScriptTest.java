package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** bin/start-server.sh starts a real server process sized from its config; bin/stop-server.sh stops it. */
class ServerScriptTest {
  @TempDir Path dir;

  @Test
  void startServesMetricsRefusesASecondStartAndStops() throws Exception {
    int port = Daemons.freePort();
    int httpPort = Daemons.freePort();
    Path conf = dir.resolve("server-it.conf");
    Files.writeString(conf, String.join("\n",
        "# written by ServerScriptTest",
        "server.bind.host 127.0.0.1",
        "server.port " + port,
        "server.http.port " + httpPort,
        "local.dirs " + dir.resolve("data"),
        "disk.min.free 0",
        "buffer.capacity 64m",
        "read.buffer.capacity 16m",
        ""));
    Map<String, String> env = Map.of(
        "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
        "SLUICE_PID_DIR", dir.resolve("run").toString(),
        "SLUICE_SERVER_HEAP", "256m");
    Daemons.Result start = Daemons.run(dir, env, "bin/start-server.sh", conf.toString());
    assertEquals(0, start.exitCode(), start.output());
    Path pidFile = dir.resolve("run/server-server-it.pid");
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    try {
      Daemons.awaitPort(port, dir.resolve("logs/server-server-it.log.out"));
      Daemons.awaitPort(httpPort, dir.resolve("logs/server-server-it.log.out"));
      String cmdline = ProcessHandle.of(pid).flatMap(h -> h.info().arguments())
          .map(a -> String.join(" ", a)).orElse("");
      // The two budgets plus the default network allowance: 1.5 x 128 MiB receive memory,
      // 1,024 connections x 192 KiB, 32 MiB.
      long expectedDirect = (64L << 20) + (16L << 20) + (192L << 20) + (192L << 20) + (32L << 20);
      assertTrue(cmdline.contains("-XX:MaxDirectMemorySize=" + expectedDirect), cmdline);

      HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, metrics.statusCode());
      assertTrue(metrics.body().contains("sluice_server_push_memory_capacity_bytes 6.7108864E7"),
          metrics.body());

      Daemons.Result again = Daemons.run(dir, env, "bin/start-server.sh", conf.toString());
      assertNotEquals(0, again.exitCode());
      assertTrue(again.output().contains("already running"), again.output());
    } finally {
      Daemons.Result stop = Daemons.run(dir, env, "bin/stop-server.sh", conf.toString());
      assertEquals(0, stop.exitCode(), stop.output());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (Daemons.alive(pid) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertFalse(Daemons.alive(pid), "server process should be gone");
    assertFalse(Files.exists(pidFile));
  }

  @Test
  void invalidConfigurationFailsAtStartNamingTheKey() throws Exception {
    Path conf = dir.resolve("bad.conf");
    Files.writeString(conf, "buffer.capacity banana\nlocal.dirs " + dir.resolve("d") + "\n");
    Map<String, String> env = Map.of(
        "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
        "SLUICE_PID_DIR", dir.resolve("run").toString());
    Daemons.Result start = Daemons.run(dir, env, "bin/start-server.sh", conf.toString());
    assertNotEquals(0, start.exitCode());
    assertTrue(start.output().contains("buffer.capacity"), start.output());
    assertTrue(start.output().contains("banana"), start.output());
  }
}
