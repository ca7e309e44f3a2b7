package io.sluice.benchmark;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a JVM's threads spent their time, from the samples of its flight recording, counted within
 * given time windows. Threads running Java code ({@code jdk.ExecutionSample}, what {@code jfr print
 * --events jdk.ExecutionSample} lists) are counted by thread (numbers folded, so a pool's threads
 * add up), by the method on top of the stack, and by the innermost Sluice method on the stack, and
 * by the package of the method on top of the stack (self time by library). Threads in native code
 * ({@code jdk.NativeMethodSample}: system calls such as socket reads and file writes) are counted
 * by thread and native method, waits for events left out.
 */
public final class JfrProfile {
  private static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
  private static final String NATIVE_SAMPLE = "jdk.NativeMethodSample";

  /** Native methods in which a thread waits for work rather than does it. */
  private static final List<String> IDLE_METHODS =
      List.of("epollWait", "epollWait0", "epollBusyWait0", "wait", "accept", "accept0");

  private static final String SLUICE_PACKAGE = "io.sluice.";

  /** The harnesses' own code (the TPC job's queries) is not Sluice's. */
  private static final String BENCHMARK_PACKAGE = "io.sluice.benchmark.";

  /** A span of wall-clock time. */
  public record Window(Instant start, Instant end) {
    boolean contains(Instant t) {
      return !t.isBefore(start) && !t.isAfter(end);
    }
  }

  public record Count(String name, long samples) {}

  /**
   * @param samples Java execution samples, and by thread, top frame, innermost Sluice frame and the
   *     top frame's package
   * @param nativeSamples samples of threads in native code, not waiting
   * @param nativeCalls those by thread and native method
   */
  public record Summary(
      long samples,
      List<Count> threads,
      List<Count> topFrames,
      List<Count> sluiceFrames,
      List<Count> packages,
      long nativeSamples,
      List<Count> nativeCalls) {}

  private JfrProfile() {}

  public static Summary summarize(Path recording, List<Window> windows, int top)
      throws IOException {
    Map<String, Long> threads = new HashMap<>();
    Map<String, Long> topFrames = new HashMap<>();
    Map<String, Long> sluiceFrames = new HashMap<>();
    Map<String, Long> nativeCalls = new HashMap<>();
    Map<String, Long> packages = new HashMap<>();
    long samples = 0;
    long nativeSamples = 0;
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent event = file.readEvent();
        String type = event.getEventType().getName();
        if (!(type.equals(EXECUTION_SAMPLE) || type.equals(NATIVE_SAMPLE))
            || windows.stream().noneMatch(w -> w.contains(event.getStartTime()))) {
          continue;
        }
        RecordedThread thread = event.getThread("sampledThread");
        String threadName =
            thread == null || thread.getJavaName() == null
                ? "(unknown)"
                : thread.getJavaName().replaceAll("\\d+", "N");
        RecordedStackTrace stack = event.getStackTrace();
        if (stack == null || stack.getFrames().isEmpty()) {
          continue;
        }
        if (type.equals(NATIVE_SAMPLE)) {
          RecordedFrame called = stack.getFrames().get(0);
          if (called.getMethod() == null || !IDLE_METHODS.contains(called.getMethod().getName())) {
            nativeSamples++;
            nativeCalls.merge(threadName + ": " + name(called), 1L, Long::sum);
          }
          continue;
        }
        samples++;
        threads.merge(threadName, 1L, Long::sum);
        topFrames.merge(name(stack.getFrames().get(0)), 1L, Long::sum);
        packages.merge(packageOf(stack.getFrames().get(0)), 1L, Long::sum);
        String sluice = "(no Sluice frame: " + threadName + ")";
        for (RecordedFrame frame : stack.getFrames()) {
          if (frame.getMethod() != null && isSluice(frame.getMethod().getType().getName())) {
            sluice = name(frame);
            break;
          }
        }
        sluiceFrames.merge(sluice, 1L, Long::sum);
      }
    }
    return new Summary(
        samples,
        largest(threads, top),
        largest(topFrames, top),
        largest(sluiceFrames, top),
        largest(packages, top),
        nativeSamples,
        largest(nativeCalls, top));
  }

  /**
   * The frame's package, cut to four names ({@code org.apache.spark.sql}, {@code net.jpountz.lz4});
   * classes Spark generates at run time ({@code GeneratedClass}) are told apart.
   */
  private static String packageOf(RecordedFrame frame) {
    if (frame.getMethod() == null) {
      return "(unknown)";
    }
    String type = frame.getMethod().getType().getName();
    if (type.contains("GeneratedClass")) {
      return "(Spark's generated code)";
    }
    int end = type.lastIndexOf('.');
    if (end < 0) {
      return "(default package)";
    }
    String[] names = type.substring(0, end).split("\\.");
    return String.join(".", java.util.Arrays.asList(names).subList(0, Math.min(4, names.length)));
  }

  private static boolean isSluice(String type) {
    return type.startsWith(SLUICE_PACKAGE) && !type.startsWith(BENCHMARK_PACKAGE);
  }

  private static String name(RecordedFrame frame) {
    if (frame.getMethod() == null) {
      return "(unknown)";
    }
    String type = frame.getMethod().getType().getName();
    return type.substring(type.lastIndexOf('.') + 1) + "." + frame.getMethod().getName();
  }

  private static List<Count> largest(Map<String, Long> counts, int top) {
    return counts.entrySet().stream()
        .map(e -> new Count(e.getKey(), e.getValue()))
        .sorted(Comparator.comparingLong(Count::samples).reversed().thenComparing(Count::name))
        .limit(top)
        .toList();
  }
}
