package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose start fails half-way (here: its HTTP port is taken, after its data port was bound)
 * leaves nothing behind: no thread of its own, and its data port free for the next try.
 */
class FailedStartTest {
  @TempDir Path dir;

  @Test
  void aStartThatFailsClosesWhatItOpened() throws Exception {
    Set<String> before = sluiceThreads();
    int dataPort;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      dataPort = probe.getLocalPort();
    }
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThrows(
          IOException.class,
          () ->
              new ShuffleServer(
                  TestServers.conf(
                      dir,
                      Map.of(
                          ServerOptions.PORT.key(), String.valueOf(dataPort),
                          ServerOptions.HTTP_PORT.key(), String.valueOf(taken.getLocalPort())))));
    }
    try (ServerSocket again = new ServerSocket(dataPort, 1, InetAddress.getLoopbackAddress())) {
      assertTrue(again.isBound(), "the data port was given back");
    }
    long deadline = System.nanoTime() + 30_000_000_000L;
    Set<String> left = sluiceThreads();
    while (!before.containsAll(left)) {
      assertTrue(System.nanoTime() < deadline, "threads left by the failed start: " + left);
      Thread.sleep(20);
      left = sluiceThreads();
    }
  }

  /** Names of live threads that Sluice's server starts (sluice-...). */
  private static Set<String> sluiceThreads() {
    Set<String> names = new TreeSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("sluice-")) {
        names.add(t.getName());
      }
    }
    return names;
  }
}
