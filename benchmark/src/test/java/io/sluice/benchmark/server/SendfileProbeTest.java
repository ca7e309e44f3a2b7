package io.sluice.benchmark.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server benchmark's floor for sending flushed data: sendfile of a file not in the cache. */
class SendfileProbeTest {
  @Test
  void sendsTheWholeFileOverEveryConnectionAndLeavesNothingBehind(@TempDir Path dir)
      throws Exception {
    SendfileProbe.Result r = SendfileProbe.coldFile(dir, 32, 3);
    assertTrue(r.bytesPerSecond() > 0, r.toString());
    // Sending 32 MiB takes the kernel some CPU; the thread's clock counts it in nanoseconds.
    assertTrue(r.cpuSecondsPerGib() > 0 && r.cpuSecondsPerGib() < 1_000, r.toString());
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(0, left.count(), "the probe's file is left behind");
    }
  }
}
