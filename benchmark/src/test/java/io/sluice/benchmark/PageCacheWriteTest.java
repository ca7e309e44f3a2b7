package io.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dd's write into the page cache: its rate, and the CPU it spent, which the server benchmark sets
 * beside the server's own CPU per GiB.
 */
class PageCacheWriteTest {
  @Test
  void reportsTheBytesTheRateAndTheCpuOfDd(@TempDir Path dir) throws Exception {
    DiskWriteTest.Result r = DiskWriteTest.pageCache(dir, 64);
    assertEquals(64L << 20, r.bytes());
    assertTrue(r.bytesPerSecond() > 0, r.toString());
    // Copying 64 MiB takes the kernel some CPU; times reports it to the millisecond.
    assertTrue(r.cpuSeconds() > 0 && r.cpuSeconds() < 60, r.toString());
    assertEquals(r.cpuSeconds() * 16, r.cpuSecondsPerGib(), 1e-9);
    assertFalse(Files.exists(dir.resolve("dd-write-test")), "dd's file is left behind");
  }
}
