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
  void groupsJavaThreadsByTheirJavaNamesAndTheRuntimesByTheKernels() {
    assertEquals(JvmThreadCpu.TASKS,
        JvmThreadCpu.javaGroup("Executor task launch worker for task 0.0 in stage 1.0 (TID 1)"));
    assertEquals(JvmThreadCpu.TASKS, JvmThreadCpu.javaGroup("Executor task launch worker-3"));
    assertEquals(JvmThreadCpu.SHUFFLE_CLIENT, JvmThreadCpu.javaGroup("sluice-client-1-2"));
    assertEquals(JvmThreadCpu.OTHER, JvmThreadCpu.javaGroup("dag-scheduler-event-loop"));
    assertEquals(JvmThreadCpu.COMPILER, JvmThreadCpu.runtimeGroup("C2 CompilerThre"));
    assertEquals(JvmThreadCpu.COMPILER, JvmThreadCpu.runtimeGroup("C1 CompilerThre"));
    assertEquals(JvmThreadCpu.GC, JvmThreadCpu.runtimeGroup("GC Thread#0"));
    assertEquals(JvmThreadCpu.GC, JvmThreadCpu.runtimeGroup("G1 Conc#0"));
    assertEquals(JvmThreadCpu.OTHER, JvmThreadCpu.runtimeGroup("Thread-12"));
  }

  /** Spark 4 names a task thread after it started, which the kernel's name never sees. */
  @Test
  void aThreadNamedAfterItStartedCountsUnderItsJavaName() throws Exception {
    assertTaskThreadCounted(false);
  }

  @Test
  void countsWhatATaskThreadSpentAndLeavesTheRestToOther() throws Exception {
    assertTaskThreadCounted(true);
  }

  private static void assertTaskThreadCounted(boolean namedAtStart) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long processBefore = processCpuMs();
    JvmThreadCpu before = JvmThreadCpu.take();
    CountDownLatch spent = new CountDownLatch(1);
    CountDownLatch measured = new CountDownLatch(1);
    Thread task = new Thread(() -> {
      long sink = 0;
      // Until the thread has used half a second of CPU, however busy the machine is.
      while (threads.getCurrentThreadCpuTime() < 500_000_000L) {
        for (int i = 0; i < 100_000; i++) {
          sink += i * 31L ^ sink;
        }
      }
      spent.countDown();
      try {
        // A thread that has ended is no longer listed: it lives until it was read.
        measured.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, namedAtStart ? "Executor task launch worker-0" : "Thread-0");
    task.start();
    if (!namedAtStart) {
      task.setName("Executor task launch worker-0");
    }
    spent.await();
    JvmThreadCpu after = JvmThreadCpu.take();
    measured.countDown();
    task.join();
    long process = processCpuMs() - processBefore;
    Map<String, Long> ms = after.millisSince(before, process);

    assertEquals(JvmThreadCpu.GROUPS, List.copyOf(ms.keySet()));
    assertTrue(ms.get(JvmThreadCpu.TASKS) >= 500, ms.toString());
    assertEquals(process, ms.values().stream().mapToLong(Long::longValue).sum(), 60,
        ms.toString());
  }

  private static long processCpuMs() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1_000_000;
  }
}
