package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.message.HandshakeRequest;
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
 * bin/start-server.sh starts a real server process sized from its config; bin/stop-server.sh stops
 * it.
 */
class ServerScriptTest {
  @TempDir Path dir;

  @Test
  void startServesMetricsRefusesASecondStartAndStops() throws Exception {
    int port = Daemons.freePort();
    int httpPort = Daemons.freePort();
    Path conf = dir.resolve("server-it.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "# written by ServerScriptTest",
            "server.bind.host 127.0.0.1",
            "server.port " + port,
            "server.http.port " + httpPort,
            "local.dirs " + dir.resolve("data"),
            "disk.min.free 0",
            "buffer.capacity 64m",
            "read.buffer.capacity 16m",
            ""));
    Map<String, String> env =
        Map.of(
            "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
            "SLUICE_PID_DIR", dir.resolve("run").toString(),
            "SLUICE_SERVER_HEAP", "256m");
    Daemons.Result start = Daemons.inProject().run(env, "bin/start-server.sh", conf.toString());
    assertEquals(0, start.exitCode(), start.output());
    assertTrue(start.output().contains("port " + port + ", http.port " + httpPort), start.output());
    Path pidFile = dir.resolve("run/server-server-it.pid");
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    try {
      // The script said "started" only once both ports listen: no waiting here.
      new Socket("127.0.0.1", port).close();
      new Socket("127.0.0.1", httpPort).close();
      Daemons.Result status = Daemons.inProject().run(env, "bin/status-server.sh", conf.toString());
      assertEquals(0, status.exitCode(), status.output());
      assertTrue(
          status.output().contains("is running (pid " + pid + ", port " + port), status.output());
      String cmdline =
          ProcessHandle.of(pid)
              .flatMap(h -> h.info().arguments())
              .map(a -> String.join(" ", a))
              .orElse("");
      // The two budgets, 4 KiB per MiB of push memory that aligns the pool's pages, the default
      // network allowance (1.5 x 128 MiB receive memory, 1,024 connections x 192 KiB, 32 MiB)
      // and the two flush threads' staging buffers.
      long expectedDirect =
          (64L << 20)
              + 64 * 4096
              + (16L << 20)
              + (192L << 20)
              + (192L << 20)
              + (32L << 20)
              + 2 * ((1L << 20) + 4096);
      assertTrue(cmdline.contains("-XX:MaxDirectMemorySize=" + expectedDirect), cmdline);

      HttpResponse<String> metrics =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, metrics.statusCode());
      assertTrue(
          metrics.body().contains("sluice_server_push_memory_capacity_bytes 6.7108864E7"),
          metrics.body());

      // A client id with a line break, in a handshake the server refuses and logs: the log shows
      // it escaped on one line, and the metrics count the refusal.
      refusedHandshake(port, "intruder\n2099-01-01 00:00:00,000 INFO  [main] Forged: line");
      Path log = dir.resolve("logs/server-server-it.log");
      long logDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.readString(log).contains("intruder") && System.nanoTime() < logDeadline) {
        Thread.sleep(20);
      }
      String logged = Files.readString(log);
      assertTrue(logged.contains("intruder\\u000a2099-01-01"), logged);
      assertFalse(logged.lines().anyMatch(line -> line.startsWith("2099-01-01")), logged);
      String afterRefusal =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertTrue(
          afterRefusal.contains(
              "sluice_server_protocol_errors_total{status=\"VERSION_MISMATCH\",} 1.0"),
          afterRefusal);

      Daemons.Result again = Daemons.inProject().run(env, "bin/start-server.sh", conf.toString());
      assertNotEquals(0, again.exitCode());
      assertTrue(again.output().contains("already running"), again.output());
    } finally {
      Daemons.Result stop = Daemons.inProject().run(env, "bin/stop-server.sh", conf.toString());
      assertEquals(0, stop.exitCode(), stop.output());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (Daemons.alive(pid) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertFalse(Daemons.alive(pid), "server process should be gone");
    assertFalse(Files.exists(pidFile));
    Daemons.Result stopped = Daemons.inProject().run(env, "bin/status-server.sh", conf.toString());
    assertEquals(3, stopped.exitCode(), stopped.output());
    assertTrue(stopped.output().contains("is not running"), stopped.output());
  }

  /**
   * A pid file whose process ended and whose number now belongs to another process: status says the
   * server is not running, stop leaves that process alone, and start is not refused.
   */
  @Test
  void aStalePidFileNamingAnotherProcessIsNeverSignalled() throws Exception {
    Path conf = dir.resolve("server-stale.conf");
    Files.writeString(conf, "server.bind.host 127.0.0.1\nlocal.dirs " + dir.resolve("data") + "\n");
    Map<String, String> env =
        Map.of(
            "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
            "SLUICE_PID_DIR", dir.resolve("run").toString());
    Process other = new ProcessBuilder("sleep", "300").start();
    try {
      Files.createDirectories(dir.resolve("run"));
      Path pidFile = dir.resolve("run/server-server-stale.pid");
      Files.writeString(pidFile, other.pid() + "\n");

      Daemons.Result status = Daemons.inProject().run(env, "bin/status-server.sh", conf.toString());
      assertEquals(3, status.exitCode(), status.output());
      assertTrue(status.output().contains("stale pid file"), status.output());

      Daemons.Result stop = Daemons.inProject().run(env, "bin/stop-server.sh", conf.toString());
      assertEquals(0, stop.exitCode(), stop.output());
      assertTrue(stop.output().contains("is not a Sluice server"), stop.output());
      assertTrue(other.isAlive(), "the other process was signalled");
      assertFalse(Files.exists(pidFile), "the stale pid file is removed");
    } finally {
      other.destroyForcibly();
    }
  }

  /** Sends a handshake for protocol version 1 only and waits until the server closes. */
  private static void refusedHandshake(int port, String clientId) throws Exception {
    EmbeddedChannel encoder = new EmbeddedChannel(new MessageEncoder(false));
    encoder.writeOutbound(new HandshakeRequest(1, 1, 1, clientId));
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      ByteBuf frame;
      while ((frame = encoder.readOutbound()) != null) {
        socket.getOutputStream().write(ByteBufUtil.getBytes(frame));
        frame.release();
      }
      byte[] sink = new byte[1024];
      while (socket.getInputStream().read(sink) >= 0) {
        // the VERSION_MISMATCH answer, then the end of the stream
      }
    } finally {
      encoder.finishAndReleaseAll();
    }
  }

  @Test
  void invalidConfigurationFailsAtStartNamingTheKey() throws Exception {
    Path conf = dir.resolve("bad.conf");
    Files.writeString(conf, "buffer.capacity banana\nlocal.dirs " + dir.resolve("d") + "\n");
    Map<String, String> env =
        Map.of(
            "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
            "SLUICE_PID_DIR", dir.resolve("run").toString());
    Daemons.Result start = Daemons.inProject().run(env, "bin/start-server.sh", conf.toString());
    assertNotEquals(0, start.exitCode());
    assertTrue(start.output().contains("buffer.capacity"), start.output());
    assertTrue(start.output().contains("banana"), start.output());
  }
}
