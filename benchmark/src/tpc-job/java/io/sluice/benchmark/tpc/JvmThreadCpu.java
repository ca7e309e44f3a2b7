package io.sluice.benchmark.tpc;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU time of this JVM's threads by group: the map and reduce tasks, the shuffle client's event
 * loops (Sluice's), the JIT compiler, the garbage collector, and the rest of the process. In local
 * mode this JVM is the driver and the executor, so the groups say where the CPU that task metrics
 * do not count went.
 *
 * <p>Java threads are told apart by their Java names and measured by the JVM
 * ({@link ThreadMXBean}): the kernel's name of a thread is the one it had when it started, and
 * Spark 4 names its task threads only after they start. The compiler's and the collector's threads
 * are not Java threads; they are read from {@code /proc/self/task} (Linux), under the names the
 * JVM gives them.
 */
final class JvmThreadCpu {
  static final String TASKS = "tasks";
  static final String SHUFFLE_CLIENT = "shuffle client";
  static final String COMPILER = "compiler";
  static final String GC = "gc";
  static final String OTHER = "other";
  static final List<String> GROUPS = List.of(TASKS, SHUFFLE_CLIENT, COMPILER, GC, OTHER);

  /** Clock ticks per second of utime and stime: USER_HZ, which Linux fixes at 100. */
  private static final long TICKS_PER_SECOND = 100;
  private static final Path TASKS_DIR = Path.of("/proc/self/task");

  /** CPU nanoseconds of each Java thread, by thread id (never reused within a JVM). */
  private final Map<Long, Long> javaNanos;
  private final Map<Long, String> javaNames;
  /** CPU ticks of each compiler or collector thread, by "tid name". */
  private final Map<String, Long> nativeTicks;

  private JvmThreadCpu(Map<Long, Long> javaNanos, Map<Long, String> javaNames,
      Map<String, Long> nativeTicks) {
    this.javaNanos = javaNanos;
    this.javaNames = javaNames;
    this.nativeTicks = nativeTicks;
  }

  /** Every live thread's CPU now. */
  static JvmThreadCpu take() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> nanos = new HashMap<>();
    Map<Long, String> names = new HashMap<>();
    if (threads.isThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled()) {
      for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (info == null) {
          continue;
        }
        long used = threads.getThreadCpuTime(info.getThreadId());
        if (used >= 0) {
          nanos.put(info.getThreadId(), used);
          names.put(info.getThreadId(), info.getThreadName());
        }
      }
    }
    return new JvmThreadCpu(nanos, names, runtimeThreadTicks());
  }

  /**
   * Milliseconds of CPU by group since {@code before}; empty when nothing could be read. Threads
   * that ended in between are not seen, so {@link #OTHER} is the process's CPU
   * ({@code processCpuMs}) less the other groups.
   */
  Map<String, Long> millisSince(JvmThreadCpu before, long processCpuMs) {
    if (javaNanos.isEmpty() || before.javaNanos.isEmpty()) {
      return Map.of();
    }
    Map<String, Long> ms = new LinkedHashMap<>();
    GROUPS.forEach(g -> ms.put(g, 0L));
    long grouped = 0;
    for (Map.Entry<Long, Long> e : javaNanos.entrySet()) {
      String group = javaGroup(javaNames.get(e.getKey()));
      if (group.equals(OTHER)) {
        continue;
      }
      long used = (e.getValue() - before.javaNanos.getOrDefault(e.getKey(), 0L)) / 1_000_000;
      ms.merge(group, used, Long::sum);
      grouped += used;
    }
    for (Map.Entry<String, Long> e : nativeTicks.entrySet()) {
      String group = runtimeGroup(e.getKey().substring(e.getKey().indexOf(' ') + 1));
      long ticks = e.getValue() - before.nativeTicks.getOrDefault(e.getKey(), 0L);
      // Less than before: the kernel gave an ended thread's id to a new one of the same name.
      long used = (ticks < 0 ? e.getValue() : ticks) * 1000 / TICKS_PER_SECOND;
      ms.merge(group, used, Long::sum);
      grouped += used;
    }
    ms.put(OTHER, Math.max(0, processCpuMs - grouped));
    return ms;
  }

  /** The group of a Java thread by its Java name. */
  static String javaGroup(String name) {
    if (name == null) {
      return OTHER;
    }
    if (name.startsWith("Executor task launch worker")) {
      return TASKS;
    }
    if (name.startsWith("sluice-client")) {
      return SHUFFLE_CLIENT;
    }
    return OTHER;
  }

  /** The group of one of the JVM's own threads by the name the kernel keeps (15 bytes at most). */
  static String runtimeGroup(String name) {
    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
      return COMPILER;
    }
    if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
      return GC;
    }
    return OTHER;
  }

  /** The compiler's and the collector's threads' CPU ticks, by "tid name"; empty off Linux. */
  private static Map<String, Long> runtimeThreadTicks() {
    Map<String, Long> ticks = new HashMap<>();
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(TASKS_DIR)) {
      for (Path thread : threads) {
        String stat;
        try {
          stat = Files.readString(thread.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (IOException ended) {
          continue;
        }
        // "tid (name) state ..." where the name (at most 15 bytes) may hold spaces and ')';
        // utime and stime are the 14th and 15th fields, the 12th and 13th after the name.
        int close = stat.lastIndexOf(')');
        String name = stat.substring(stat.indexOf('(') + 1, close);
        if (runtimeGroup(name).equals(OTHER)) {
          continue;
        }
        String[] rest = stat.substring(close + 2).split(" ");
        ticks.put(thread.getFileName() + " " + name,
            Long.parseLong(rest[11]) + Long.parseLong(rest[12]));
      }
    } catch (IOException | RuntimeException unreadable) {
      return Map.of();
    }
    return ticks;
  }
}
