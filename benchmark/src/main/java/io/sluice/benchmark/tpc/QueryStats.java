package io.sluice.benchmark.tpc;

import static io.sluice.benchmark.tpc.Figures.list;
import static io.sluice.benchmark.tpc.Figures.median;
import static io.sluice.benchmark.tpc.Figures.num;
import static io.sluice.benchmark.tpc.Figures.serverMax;
import static io.sluice.benchmark.tpc.Figures.serverSum;
import static io.sluice.benchmark.tpc.Figures.stageSum;

import io.sluice.benchmark.MetricsPoller;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The figures of one query in one mode over all rounds: medians, spreads and sums. */
record QueryStats(
    String query,
    Mode mode,
    List<Long> wallMs,
    double medianMs,
    long minMs,
    long maxMs,
    double shuffleWriteBytes,
    double shuffleReadBytes,
    double cpuMs,
    double taskGcMs,
    double jvmGcMs,
    double jvmCpuMs,
    long failedTasks,
    long retriedTasks,
    long stageRetries,
    int errors,
    Set<String> answers,
    Set<String> notes,
    List<String> stagesOfMedianRound,
    long serverPeakDirectBytes,
    long serverPeakPushBytes,
    long serverPeakHeapBytes,
    double serverGcMs,
    double serverCpuMs,
    double serverFlushedBytes,
    long pushRejections,
    Map<String, Double> serverThreadCpuMs,
    Map<String, Double> jvmThreadCpuMs) {

  /** {@code lines}: the job's line for this query from each round of this mode. */
  static QueryStats of(String query, Mode mode, List<Map<String, Object>> lines) {
    List<Long> walls = new ArrayList<>();
    List<Long> write = new ArrayList<>();
    List<Long> read = new ArrayList<>();
    List<Long> cpu = new ArrayList<>();
    List<Long> taskGc = new ArrayList<>();
    List<Long> jvmGc = new ArrayList<>();
    List<Long> jvmCpu = new ArrayList<>();
    List<Long> serverGc = new ArrayList<>();
    List<Long> serverCpu = new ArrayList<>();
    List<Long> flushed = new ArrayList<>();
    Map<String, List<Long>> threadCpu = new LinkedHashMap<>();
    Map<String, List<Long>> jvmThreadCpu = new LinkedHashMap<>();
    long failed = 0;
    long retried = 0;
    long stageRetries = 0;
    int errors = 0;
    long peakDirect = 0;
    long peakPush = 0;
    long peakHeap = 0;
    long rejections = 0;
    Set<String> answers = new LinkedHashSet<>();
    Set<String> notes = new LinkedHashSet<>();
    for (Map<String, Object> l : lines) {
      walls.add(num(l, "wallMs"));
      write.add(stageSum(l, "shuffleWriteBytes"));
      read.add(stageSum(l, "shuffleReadBytes"));
      cpu.add(stageSum(l, "cpuMs"));
      taskGc.add(stageSum(l, "gcMs"));
      jvmGc.add(num(l, "jvmGcMs"));
      jvmCpu.add(num(l, "jvmCpuMs"));
      if (l.get("jvmThreadCpuMs") instanceof Map<?, ?> groups) {
        groups.forEach(
            (g, ms) ->
                jvmThreadCpu
                    .computeIfAbsent(g.toString(), k -> new ArrayList<>())
                    .add(((Number) ms).longValue()));
      }
      failed += stageSum(l, "failedTasks");
      retried += stageSum(l, "retriedTasks");
      stageRetries += list(l, "stages").stream().filter(s -> num(s, "attempt") > 0).count();
      if (l.get("error") != null) {
        errors++;
        answers.add("error");
      } else {
        answers.add(num(l, "rows") + " rows, checksum " + l.get("checksum"));
      }
      Object note = l.get("note");
      if (note != null && !note.toString().isEmpty()) {
        notes.add(note.toString());
      }
      if (l.containsKey("servers")) {
        serverGc.add(serverSum(l, "gcMs"));
        serverCpu.add(serverSum(l, "cpuMs"));
        flushed.add(serverSum(l, "flushedBytes"));
        peakDirect = Math.max(peakDirect, serverMax(l, "peakDirectMemoryBytes"));
        peakPush = Math.max(peakPush, serverMax(l, "peakPushMemoryBytes"));
        peakHeap = Math.max(peakHeap, serverMax(l, "peakHeapBytes"));
        rejections += serverSum(l, "pushRejections");
        for (String group : MetricsPoller.THREAD_GROUPS) {
          threadCpu
              .computeIfAbsent(group, g -> new ArrayList<>())
              .add(serverSum(l, TpcBenchmark.threadCpuKey(group)));
        }
      }
    }
    double med = median(walls);
    Map<String, Object> medianLine =
        lines.stream()
            .min(Comparator.comparingDouble(l -> Math.abs(num(l, "wallMs") - med)))
            .orElse(Map.of());
    List<String> stages = new ArrayList<>();
    for (Map<String, Object> s : list(medianLine, "stages")) {
      stages.add(Figures.seconds(num(s, "durationMs")));
    }
    return new QueryStats(
        query,
        mode,
        walls,
        med,
        walls.stream().mapToLong(Long::longValue).min().orElse(0),
        walls.stream().mapToLong(Long::longValue).max().orElse(0),
        median(write),
        median(read),
        median(cpu),
        median(taskGc),
        median(jvmGc),
        median(jvmCpu),
        failed,
        retried,
        stageRetries,
        errors,
        answers,
        notes,
        stages,
        peakDirect,
        peakPush,
        peakHeap,
        serverGc.isEmpty() ? 0 : median(serverGc),
        serverCpu.isEmpty() ? 0 : median(serverCpu),
        flushed.isEmpty() ? 0 : median(flushed),
        rejections,
        medians(threadCpu),
        medians(jvmThreadCpu));
  }

  private static Map<String, Double> medians(Map<String, List<Long>> values) {
    Map<String, Double> m = new LinkedHashMap<>();
    values.forEach((k, v) -> m.put(k, median(v)));
    return m;
  }

  boolean hasServers() {
    return mode.usesClientJar();
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("query", query);
    m.put("mode", mode.label());
    m.put("wallMs", wallMs);
    m.put("medianMs", medianMs);
    m.put("minMs", minMs);
    m.put("maxMs", maxMs);
    m.put("shuffleWriteBytes", shuffleWriteBytes);
    m.put("shuffleReadBytes", shuffleReadBytes);
    m.put("taskCpuMs", cpuMs);
    m.put("taskGcMs", taskGcMs);
    m.put("jvmGcMs", jvmGcMs);
    m.put("jvmCpuMs", jvmCpuMs);
    m.put("failedTasks", failedTasks);
    m.put("retriedTasks", retriedTasks);
    m.put("stageRetries", stageRetries);
    m.put("errors", errors);
    m.put("answers", new ArrayList<>(answers));
    m.put("notes", new ArrayList<>(notes));
    m.put("stageSecondsOfMedianRound", stagesOfMedianRound);
    m.put("jvmThreadCpuMs", jvmThreadCpuMs);
    if (hasServers()) {
      m.put("serverPeakDirectMemoryBytes", serverPeakDirectBytes);
      m.put("serverPeakPushMemoryBytes", serverPeakPushBytes);
      m.put("serverPeakHeapBytes", serverPeakHeapBytes);
      m.put("serverGcMs", serverGcMs);
      m.put("serverThreadCpuMs", serverThreadCpuMs);
      m.put("serverCpuMs", serverCpuMs);
      m.put("serverFlushedBytes", serverFlushedBytes);
      m.put("serverPushRejections", pushRejections);
    }
    return m;
  }
}
