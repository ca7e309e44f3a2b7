package io.sluice.benchmark.coordinator;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of the threads whose names start with given prefixes, so that a coordinator's threads
 * can be measured apart from the load generator's in one JVM. Threads that end between two
 * snapshots are counted up to the last snapshot that saw them.
 */
final class ThreadCpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final List<String> prefixes;

  ThreadCpu(List<String> prefixes) {
    this.prefixes = prefixes;
    if (!THREADS.isThreadCpuTimeSupported()) {
      throw new IllegalStateException("this JVM cannot measure thread CPU time");
    }
    THREADS.setThreadCpuTimeEnabled(true);
  }

  /** CPU time (user and kernel) and user time of one thread, in nanoseconds. */
  record Usage(long cpuNanos, long userNanos) {
    static final Usage NONE = new Usage(0, 0);

    Usage minus(Usage earlier) {
      return new Usage(cpuNanos - earlier.cpuNanos, userNanos - earlier.userNanos);
    }

    Usage plus(Usage other) {
      return new Usage(cpuNanos + other.cpuNanos, userNanos + other.userNanos);
    }
  }

  /** Usage so far of each matching live thread, by thread id. */
  Map<Long, Usage> snapshot() {
    Map<Long, Usage> usage = new HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && matches(info.getThreadName())) {
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        long user = THREADS.getThreadUserTime(info.getThreadId());
        if (cpu >= 0 && user >= 0) {
          usage.put(info.getThreadId(), new Usage(cpu, user));
        }
      }
    }
    return usage;
  }

  /** Usage between two snapshots, summed over the threads. */
  static Usage between(Map<Long, Usage> before, Map<Long, Usage> after) {
    Usage total = Usage.NONE;
    for (Map.Entry<Long, Usage> e : after.entrySet()) {
      total = total.plus(e.getValue().minus(before.getOrDefault(e.getKey(), Usage.NONE)));
    }
    return total;
  }

  /** CPU nanoseconds of the calling thread so far. */
  static long currentThread() {
    return THREADS.getCurrentThreadCpuTime();
  }

  private boolean matches(String name) {
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
