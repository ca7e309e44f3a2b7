package io.sluice.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.prometheus.client.Collector.MetricFamilySamples;
import io.prometheus.client.Collector.MetricFamilySamples.Sample;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The process's CPU by group of threads, from /proc. */
class ThreadCpuExportsTest {
  /** Where the busy thread's arithmetic goes, so that it is not optimised away. */
  private static volatile long sink;

  @Test
  void namesPutThreadsInTheirGroups() {
    assertEquals(ThreadCpuExports.Threads.NETWORK, ThreadCpuExports.Threads.of("sluice-server-1"));
    assertEquals(
        ThreadCpuExports.Threads.REPLICATION, ThreadCpuExports.Threads.of("sluice-client-2"));
    assertEquals(ThreadCpuExports.Threads.FLUSH, ThreadCpuExports.Threads.of("sluice-flush-pl"));
    assertEquals(ThreadCpuExports.Threads.FLUSH, ThreadCpuExports.Threads.of("sluice-flush-da"));
    assertEquals(ThreadCpuExports.Threads.READ, ThreadCpuExports.Threads.of("sluice-read-data"));
    assertEquals(ThreadCpuExports.Threads.READ, ThreadCpuExports.Threads.of("sluice-read-hdfs"));
    assertEquals(ThreadCpuExports.Threads.COMPILER, ThreadCpuExports.Threads.of("C2 CompilerThre"));
    assertEquals(ThreadCpuExports.Threads.GC, ThreadCpuExports.Threads.of("GC Thread#0"));
    assertEquals(ThreadCpuExports.Threads.GC, ThreadCpuExports.Threads.of("G1 Conc#0"));
    assertEquals(ThreadCpuExports.Threads.HTTP, ThreadCpuExports.Threads.of("prometheus-http"));
    assertEquals(ThreadCpuExports.Threads.HTTP, ThreadCpuExports.Threads.of("HTTP-Dispatcher"));
    assertEquals(ThreadCpuExports.Threads.OTHER, ThreadCpuExports.Threads.of("main"));
  }

  @Test
  void aStatLineIsReadWhateverTheThreadsNameHolds() {
    String stat = "4242 (odd) name) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 30 0 987654 1 2";
    ThreadCpuExports.Parsed p = ThreadCpuExports.Parsed.of(stat);
    assertEquals("odd) name", p.name());
    assertEquals(175, p.ticks());
    assertEquals(987654, p.startTicks());
    assertNull(ThreadCpuExports.Parsed.of("4242 no name here"));
  }

  @Test
  void aBusyFlushThreadIsCountedAndStaysCountedAfterItEnds() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux /proc");
    ThreadCpuExports exports = new ThreadCpuExports();
    double before = seconds(exports.collect(), "flush");
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch seen = new CountDownLatch(1);
    Thread busy =
        new Thread(
            () -> {
              var bean = ManagementFactory.getThreadMXBean();
              long x = 0;
              while (bean.getCurrentThreadCpuTime() < 300_000_000L) {
                x += System.nanoTime() % 7;
              }
              sink = x;
              spun.countDown();
              try {
                seen.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "sluice-flush-test");
    busy.start();
    spun.await();
    double alive = seconds(exports.collect(), "flush");
    seen.countDown();
    busy.join();
    double after = seconds(exports.collect(), "flush");
    // 300 ms of CPU, counted to the kernel's 10 ms tick.
    assertTrue(alive - before >= 0.25, "flush " + before + " -> " + alive);
    assertTrue(after >= alive, "an ended thread's CPU stays counted: " + alive + " -> " + after);
    double total = 0;
    for (Sample s : exports.collect().get(0).samples) {
      total += s.value;
    }
    assertTrue(total >= after, "the groups add up to the process");
  }

  private static double seconds(List<MetricFamilySamples> families, String threads) {
    assertEquals(1, families.size());
    MetricFamilySamples f = families.get(0);
    assertEquals(ThreadCpuExports.NAME.replace("_total", ""), f.name);
    return f.samples.stream()
        .filter(s -> s.labelValues.equals(List.of(threads)))
        .mapToDouble(s -> s.value)
        .findFirst()
        .orElseThrow();
  }
}
