package io.sluice.benchmark.tpc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU time of this JVM's threads by group, read from {@code /proc/self/task} (Linux): the map
 * and reduce tasks, the shuffle client's event loops and timer (Sluice's), Sluice's other threads
 * (the driver's endpoint and bookkeeping, look-ups), the JIT compiler, the garbage collector, and
 * the rest of the process (Spark's own threads among them). In local mode this JVM is the driver
 * and the executor, so the groups say where the CPU that task metrics do not count went.
 */
final class JvmThreadCpu {
  static final String TASKS = "tasks";
  static final String SHUFFLE_CLIENT = "shuffle client";
  static final String SLUICE_OTHER = "other Sluice";
  static final String COMPILER = "compiler";
  static final String GC = "gc";
  static final String OTHER = "other";
  static final List<String> GROUPS =
      List.of(TASKS, SHUFFLE_CLIENT, SLUICE_OTHER, COMPILER, GC, OTHER);

  /** Clock ticks per second of utime and stime: USER_HZ, which Linux fixes at 100. */
  private static final long TICKS_PER_SECOND = 100;

  private static final Path TASKS_DIR = Path.of("/proc/self/task");

  private final Map<String, Long> ticksByThread;

  private JvmThreadCpu(Map<String, Long> ticksByThread) {
    this.ticksByThread = ticksByThread;
  }

  /** Every live thread's CPU now; empty where /proc cannot be read. */
  static JvmThreadCpu take() {
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
        String[] rest = stat.substring(close + 2).split(" ");
        long used = Long.parseLong(rest[11]) + Long.parseLong(rest[12]);
        ticks.put(thread.getFileName() + " " + name, used);
      }
    } catch (IOException | RuntimeException unreadable) {
      return new JvmThreadCpu(Map.of());
    }
    return new JvmThreadCpu(ticks);
  }

  /**
   * Milliseconds of CPU by group since {@code before}. Threads that ended in between are not seen,
   * so {@link #OTHER} is the process's CPU ({@code processCpuMs}) less the other groups.
   */
  Map<String, Long> millisSince(JvmThreadCpu before, long processCpuMs) {
    if (ticksByThread.isEmpty() || before.ticksByThread.isEmpty()) {
      return Map.of();
    }
    Map<String, Long> ms = new LinkedHashMap<>();
    GROUPS.forEach(g -> ms.put(g, 0L));
    long grouped = 0;
    for (Map.Entry<String, Long> e : ticksByThread.entrySet()) {
      String group = group(e.getKey().substring(e.getKey().indexOf(' ') + 1));
      if (group.equals(OTHER)) {
        continue;
      }
      long ticks = e.getValue() - before.ticksByThread.getOrDefault(e.getKey(), 0L);
      // Less than before: the kernel gave an ended thread's id to a new one of the same name.
      long used = (ticks < 0 ? e.getValue() : ticks) * 1000 / TICKS_PER_SECOND;
      ms.merge(group, used, Long::sum);
      grouped += used;
    }
    ms.put(OTHER, Math.max(0, processCpuMs - grouped));
    return ms;
  }

  /**
   * The group of a thread by its name as the kernel keeps it (Java's name cut to 15 bytes). Spark
   * renames a task thread while it runs a task: the kernel keeps "Executor task l" from Spark 3.5's
   * names and "Executor task i" from Spark 4.2's.
   */
  static String group(String name) {
    if (name.startsWith("Executor task ")) {
      return TASKS;
    }
    if (name.startsWith("sluice-client")) {
      return SHUFFLE_CLIENT;
    }
    if (name.startsWith("sluice-")) {
      return SLUICE_OTHER;
    }
    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
      return COMPILER;
    }
    if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
      return GC;
    }
    return OTHER;
  }
}
