package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The TPC job's split of its JVM's CPU by thread, read from /proc/self/task. */
class JvmThreadCpuTest {
  @Test
  void groupsThreadsByTheNamesTheKernelKeeps() {
    assertEquals(JvmThreadCpu.TASKS, JvmThreadCpu.group("Executor task l"));
    // Spark 4.2's task threads, as the kernel keeps their names while they run a task.
    assertEquals(JvmThreadCpu.TASKS, JvmThreadCpu.group("Executor task i"));
    assertEquals(JvmThreadCpu.SHUFFLE_CLIENT, JvmThreadCpu.group("sluice-client-1"));
    assertEquals(JvmThreadCpu.SLUICE_OTHER, JvmThreadCpu.group("sluice-driver-h"));
    assertEquals(JvmThreadCpu.COMPILER, JvmThreadCpu.group("C2 CompilerThre"));
    assertEquals(JvmThreadCpu.COMPILER, JvmThreadCpu.group("C1 CompilerThre"));
    assertEquals(JvmThreadCpu.GC, JvmThreadCpu.group("GC Thread#0"));
    assertEquals(JvmThreadCpu.GC, JvmThreadCpu.group("G1 Conc#0"));
    assertEquals(JvmThreadCpu.OTHER, JvmThreadCpu.group("dag-scheduler-e"));
  }

  @Test
  void countsWhatATaskThreadSpentAndLeavesTheRestToOther() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long processBefore = processCpuMs();
    JvmThreadCpu before = JvmThreadCpu.take();
    CountDownLatch spent = new CountDownLatch(1);
    CountDownLatch measured = new CountDownLatch(1);
    Thread task =
        new Thread(
            () -> {
              long sink = 0;
              // Until the thread has used half a second of CPU, however busy the machine is.
              while (threads.getCurrentThreadCpuTime() < 500_000_000L) {
                for (int i = 0; i < 100_000; i++) {
                  sink += i * 31L ^ sink;
                }
              }
              spent.countDown();
              try {
                // A thread that has ended is no longer in /proc/self/task: live until it was read.
                measured.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "Executor task launch worker-0");
    task.start();
    spent.await();
    JvmThreadCpu after = JvmThreadCpu.take();
    measured.countDown();
    task.join();
    long process = processCpuMs() - processBefore;
    Map<String, Long> ms = after.millisSince(before, process);

    assertEquals(JvmThreadCpu.GROUPS, List.copyOf(ms.keySet()));
    // The kernel counts in 10 ms ticks, the thread's own clock more finely.
    assertTrue(ms.get(JvmThreadCpu.TASKS) >= 450, ms.toString());
    assertEquals(process, ms.values().stream().mapToLong(Long::longValue).sum(), 60, ms.toString());
  }

  private static long processCpuMs() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1_000_000;
  }
}
