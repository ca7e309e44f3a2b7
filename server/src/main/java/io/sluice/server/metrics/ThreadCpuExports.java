package io.sluice.server.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The process's CPU by what its threads do, read from Linux's {@code /proc/self/task} at each
 * scrape: {@code sluice_server_cpu_seconds_total{threads}}. Threads are told apart by name: the
 * server's event loops, the replication client's, the flush threads, the read threads, the JIT
 * compiler's, the garbage collector's and the HTTP port's; {@code other} is the rest of the
 * process's CPU, exited threads included. Elsewhere than on Linux the metric is absent.
 */
final class ThreadCpuExports extends Collector {
  static final String NAME = "sluice_server_cpu_seconds_total";

  /** Kernel ticks per second in {@code /proc} (USER_HZ): 100 on every Linux userland ABI. */
  private static final double TICKS_PER_SECOND = 100;

  enum Threads {
    /** The server's event loops: receiving, admitting and copying pushes; answering; sending. */
    NETWORK,
    /** The event loops that forward blocks to the next server of a replica chain. */
    REPLICATION,
    /** The flush planner and the threads that write flushes to disk and HDFS. */
    FLUSH,
    /** The threads that read for readers off the event loops: direct reads of local disks, HDFS. */
    READ,
    /** The JIT compiler's threads. */
    COMPILER,
    /** The garbage collector's threads. */
    GC,
    /** The HTTP port's threads: {@code /metrics} scrapes, {@code /status}, admin requests. */
    HTTP,
    /** Everything else, threads that have ended included. */
    OTHER;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The group of a thread by its name as {@code /proc} shows it (at most 15 characters). */
    static Threads of(String name) {
      if (name.startsWith("sluice-server") || name.startsWith("sluice-accept")) {
        return NETWORK;
      }
      if (name.startsWith("sluice-client")) {
        return REPLICATION;
      }
      if (name.startsWith("sluice-flush")) {
        return FLUSH;
      }
      if (name.startsWith("sluice-read")) {
        return READ;
      }
      if (name.contains("CompilerThre")) {
        return COMPILER;
      }
      if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
        return GC;
      }
      // Prometheus' exporter names its pool's threads, the JDK's HTTP server its dispatcher.
      if (name.startsWith("prometheus-http") || name.startsWith("HTTP-Dispatcher")) {
        return HTTP;
      }
      return OTHER;
    }
  }

  /** A thread, by id and start time, since the kernel reuses ids. */
  private record Task(String tid, long startTicks) {}

  private record Reading(Threads group, long ticks) {}

  private final Path process;

  /** What each live thread had used at the last scrape. */
  private Map<Task, Reading> live = new HashMap<>();

  /** What the threads that have ended since had used when last seen. */
  private final Map<Threads, Long> ended = new EnumMap<>(Threads.class);

  private long otherTicks;

  ThreadCpuExports() {
    this(Path.of("/proc/self"));
  }

  ThreadCpuExports(Path process) {
    this.process = process;
  }

  @Override
  public synchronized List<MetricFamilySamples> collect() {
    Map<Task, Reading> now = readTasks();
    if (now == null) {
      return List.of();
    }
    live.forEach(
        (task, reading) -> {
          if (!now.containsKey(task)) {
            ended.merge(reading.group(), reading.ticks(), Long::sum);
          }
        });
    live = now;
    Map<Threads, Long> ticks = new EnumMap<>(ended);
    now.values().forEach(r -> ticks.merge(r.group(), r.ticks(), Long::sum));
    // The process's own count covers every thread, ended ones too, and is read after them.
    long total = processTicks();
    long named = 0;
    for (Threads group : Threads.values()) {
      if (group != Threads.OTHER) {
        named += ticks.getOrDefault(group, 0L);
      }
    }
    // A scrape racing a thread's exit could make the difference dip: a counter never does.
    otherTicks = Math.max(otherTicks, total - named);
    ticks.put(Threads.OTHER, otherTicks);
    CounterMetricFamily family =
        new CounterMetricFamily(
            NAME,
            "CPU seconds the process spent, by the threads that spent them",
            List.of("threads"));
    for (Threads group : Threads.values()) {
      family.addMetric(List.of(group.label()), ticks.getOrDefault(group, 0L) / TICKS_PER_SECOND);
    }
    return List.of(family);
  }

  /** Every live thread's CPU, or null where there is no {@code /proc}. */
  private Map<Task, Reading> readTasks() {
    Map<Task, Reading> tasks = new HashMap<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(process.resolve("task"))) {
      for (Path dir : dirs) {
        String stat;
        try {
          stat = Files.readString(dir.resolve("stat"));
        } catch (IOException ended) {
          continue;
        }
        Parsed p = Parsed.of(stat);
        if (p != null) {
          tasks.put(
              new Task(dir.getFileName().toString(), p.startTicks()),
              new Reading(Threads.of(p.name()), p.ticks()));
        }
      }
    } catch (IOException | UnsupportedOperationException e) {
      return null;
    }
    return tasks;
  }

  private long processTicks() {
    try {
      Parsed p = Parsed.of(Files.readString(process.resolve("stat")));
      return p == null ? 0 : p.ticks();
    } catch (IOException e) {
      return 0;
    }
  }

  /** The fields of a {@code stat} line read here: name, user + system ticks, start time. */
  record Parsed(String name, long ticks, long startTicks) {
    static Parsed of(String stat) {
      // The name is between the first '(' and the last ')', and may itself hold both.
      int open = stat.indexOf('(');
      int close = stat.lastIndexOf(')');
      if (open < 0 || close < open) {
        return null;
      }
      String[] f = stat.substring(close + 1).trim().split(" ");
      // f[0] is field 3 (state): utime is field 14, stime 15, starttime 22.
      if (f.length < 20) {
        return null;
      }
      try {
        return new Parsed(
            stat.substring(open + 1, close),
            Long.parseLong(f[11]) + Long.parseLong(f[12]),
            Long.parseLong(f[19]));
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }
}
