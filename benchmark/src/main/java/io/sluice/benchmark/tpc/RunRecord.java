package io.sluice.benchmark.tpc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One SparkSubmit of one mode in one round: its exit code, its wall-clock span, the lines the job
 * wrote (one per query, with the servers' figures for the query's span added under {@code
 * "servers"}), and the servers' figures over the whole run.
 */
record RunRecord(
    int round,
    Mode mode,
    int exitCode,
    long startMs,
    long endMs,
    String log,
    List<Map<String, Object>> queries,
    List<Map<String, Object>> servers) {

  long wallMs() {
    return endMs - startMs;
  }

  /** The run as {@link #toMap} left it in a results file. */
  @SuppressWarnings("unchecked")
  static RunRecord of(Map<String, Object> m) {
    return new RunRecord(
        (int) Figures.num(m, "round"),
        Mode.parse(String.valueOf(m.get("mode"))),
        (int) Figures.num(m, "exitCode"),
        Figures.num(m, "startMs"),
        Figures.num(m, "endMs"),
        String.valueOf(m.get("log")),
        Figures.list(m, "queries"),
        m.get("servers") == null ? null : (List<Map<String, Object>>) m.get("servers"));
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("round", round);
    m.put("mode", mode.label());
    m.put("exitCode", exitCode);
    m.put("startMs", startMs);
    m.put("endMs", endMs);
    m.put("wallMs", wallMs());
    m.put("log", log);
    m.put("queries", queries);
    if (servers != null) {
      m.put("servers", servers);
    }
    return m;
  }
}
