package io.sluice.benchmark.tpc;

import io.sluice.benchmark.report.Check;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the rounds add up to: per query and mode the {@link QueryStats}, the Sluice / built-in
 * ratios, whether every answer agreed, and the targets, each met or missed by how much.
 */
final class TpcSummary {
  static final double SERVER_GC_SHARE_TARGET = 0.01;

  final Suite suite;

  /** The targets of the suite's total time and of its slowest query, as ratios. */
  final double totalRatioTarget;

  final double queryRatioTarget;
  final List<String> queries;
  final List<Mode> modes;
  final Map<String, Map<Mode, QueryStats>> stats = new LinkedHashMap<>();
  final List<String> mismatches = new ArrayList<>();
  final List<String> failedRuns = new ArrayList<>();
  final double serverGcShare;
  private final boolean serversMeasured;

  /**
   * Each query's profile by mode (--profile): the summary of the flight recording over the query's
   * span in the last round that has one, with the recording's path under {@code "recording"}.
   */
  final Map<String, Map<Mode, Map<String, Object>>> profiles = new LinkedHashMap<>();

  TpcSummary(Suite suite, List<String> queries, List<Mode> modes, List<RunRecord> runs) {
    this.suite = suite;
    totalRatioTarget =
        switch (suite) {
          case TPC -> 1.10;
          case TPCDS -> 0.90;
          case RDD -> 1.0;
        };
    queryRatioTarget =
        switch (suite) {
          case TPC -> 1.30;
          case TPCDS -> 1.10;
          case RDD -> 1.0;
        };
    this.queries = queries;
    this.modes = modes;
    for (String q : queries) {
      Map<Mode, QueryStats> byMode = new LinkedHashMap<>();
      Set<String> answers = new LinkedHashSet<>();
      for (Mode m : modes) {
        List<Map<String, Object>> lines = new ArrayList<>();
        for (RunRecord r : runs) {
          if (r.mode() == m) {
            r.queries().stream().filter(l -> q.equals(l.get("query"))).forEach(lines::add);
          }
        }
        for (Map<String, Object> line : lines) {
          if (line.get("profile") instanceof Map<?, ?> profile) {
            Map<String, Object> p = new LinkedHashMap<>();
            profile.forEach((k, v) -> p.put(String.valueOf(k), v));
            p.put("recording", line.get("recording"));
            profiles.computeIfAbsent(q, k -> new LinkedHashMap<>()).put(m, p);
          }
        }
        QueryStats s = QueryStats.of(q, m, lines);
        byMode.put(m, s);
        answers.addAll(s.answers());
      }
      if (answers.size() != 1) {
        mismatches.add(q + ": " + answers);
      }
      stats.put(q, byMode);
    }
    double worstGc = 0;
    for (RunRecord r : runs) {
      if (r.exitCode() != 0) {
        failedRuns.add(
            "round "
                + r.round()
                + " "
                + r.mode().label()
                + " exited with "
                + r.exitCode()
                + " (log "
                + r.log()
                + ")");
      }
      if (r.servers() != null && r.wallMs() > 0) {
        for (Map<String, Object> s : r.servers()) {
          worstGc = Math.max(worstGc, (double) Figures.num(s, "gcMs") / r.wallMs());
        }
      }
    }
    serverGcShare = worstGc;
    serversMeasured = runs.stream().anyMatch(r -> r.mode() == Mode.SLUICE && r.servers() != null);
  }

  QueryStats get(String query, Mode mode) {
    return stats.get(query).get(mode);
  }

  /**
   * Whether the servers' figures were read in the sluice runs: not for a deployment whose servers
   * no coordinator listed ({@code --coordinators} without an answering {@code /status}).
   */
  boolean serversMeasured() {
    return serversMeasured;
  }

  boolean compares() {
    return modes.contains(Mode.BUILTIN) && modes.contains(Mode.SLUICE);
  }

  /** Sluice's median over the built-in shuffle's median for one query. */
  double ratio(String query) {
    return get(query, Mode.SLUICE).medianMs() / get(query, Mode.BUILTIN).medianMs();
  }

  double totalMs(Mode mode) {
    return queries.stream().mapToDouble(q -> get(q, mode).medianMs()).sum();
  }

  double totalShuffleWriteBytes(Mode mode) {
    return queries.stream().mapToDouble(q -> get(q, mode).shuffleWriteBytes()).sum();
  }

  double totalRatio() {
    return totalMs(Mode.SLUICE) / totalMs(Mode.BUILTIN);
  }

  String worstQuery() {
    return queries.stream().max((a, b) -> Double.compare(ratio(a), ratio(b))).orElse("");
  }

  /**
   * CPU per byte of shuffle written, over all queries: Sluice's (its Spark JVM and its servers)
   * over the built-in shuffle's (its Spark JVM, which also serves its shuffle files).
   */
  double cpuPerShuffledByteRatio() {
    double sluiceCpu = 0;
    double builtinCpu = 0;
    for (String q : queries) {
      sluiceCpu += get(q, Mode.SLUICE).jvmCpuMs() + get(q, Mode.SLUICE).serverCpuMs();
      builtinCpu += get(q, Mode.BUILTIN).jvmCpuMs();
    }
    return sluiceCpu
        / totalShuffleWriteBytes(Mode.SLUICE)
        / (builtinCpu / totalShuffleWriteBytes(Mode.BUILTIN));
  }

  /**
   * Failed and retried tasks and stage retries of both modes, over the queries that failed in no
   * run: a query that fails (as q90 fails alike in both modes under Spark 4's ANSI mode at small
   * scales) fails its own tasks, and where it failed in one mode only the answers' target says so.
   */
  long failedOrRetriedTasks() {
    long n = 0;
    for (Map<Mode, QueryStats> byMode : stats.values()) {
      if (byMode.values().stream().anyMatch(s -> s.errors() > 0)) {
        continue;
      }
      for (QueryStats s : byMode.values()) {
        n += s.failedTasks() + s.retriedTasks() + s.stageRetries();
      }
    }
    return n;
  }

  boolean answersAgree() {
    return mismatches.isEmpty() && failedRuns.isEmpty();
  }

  /** The targets, each met or missed, with what was measured. */
  List<Check> checks() {
    List<Check> t = new ArrayList<>();
    t.add(
        new Check(
            "Every query gave the same row count and checksum in every round and mode",
            answersAgree()
                ? queries.size() + " of " + queries.size() + " queries"
                : String.join("; ", mismatches) + " " + String.join("; ", failedRuns),
            answersAgree()));
    if (!compares()) {
      return t;
    }
    double total = totalRatio();
    t.add(
        new Check(
            String.format(
                "Sluice's total time at most %.2fx the built-in shuffle's", totalRatioTarget),
            precise(total),
            total <= totalRatioTarget));
    String worst = worstQuery();
    double w = ratio(worst);
    t.add(
        new Check(
            String.format("No query slower than %.2fx", queryRatioTarget),
            worst + " at " + precise(w),
            w <= queryRatioTarget));
    if (suite == Suite.TPCDS) {
      double cpu = serversMeasured() ? cpuPerShuffledByteRatio() : Double.NaN;
      t.add(
          new Check(
              "CPU per shuffled GiB (Spark JVM and servers) at most the built-in shuffle's",
              serversMeasured() ? precise(cpu) : "not measured: no server figures were read",
              cpu <= 1));
    }
    long bad = failedOrRetriedTasks();
    t.add(new Check("No failed or retried task or stage attempt", String.valueOf(bad), bad == 0));
    t.add(
        new Check(
            String.format("Server GC under %.0f%% of wall time", SERVER_GC_SHARE_TARGET * 100),
            serversMeasured
                ? String.format("%.2f%% (the worst server in a run)", serverGcShare * 100)
                : "not measured: no server figures were read",
            serversMeasured && serverGcShare < SERVER_GC_SHARE_TARGET));
    return t;
  }

  /** A ratio beside its bound: to three places, so that one just over it does not read as equal. */
  private static String precise(double ratio) {
    return String.format(Locale.ROOT, "%.3fx", ratio);
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    List<Object> perQuery = new ArrayList<>();
    for (String q : queries) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("query", q);
      for (Mode mode : modes) {
        e.put(mode.label(), get(q, mode).toMap());
      }
      if (compares()) {
        e.put("ratio", ratio(q));
      }
      perQuery.add(e);
    }
    m.put("queries", perQuery);
    Map<String, Object> totals = new LinkedHashMap<>();
    for (Mode mode : modes) {
      totals.put(mode.label() + "MedianMs", totalMs(mode));
      totals.put(mode.label() + "ShuffleWriteBytes", totalShuffleWriteBytes(mode));
    }
    if (compares()) {
      totals.put("ratio", totalRatio());
    }
    m.put("totals", totals);
    m.put("answersAgree", answersAgree());
    m.put("mismatches", mismatches);
    m.put("failedRuns", failedRuns);
    m.put("failedOrRetriedTasks", failedOrRetriedTasks());
    m.put("worstServerGcShare", serverGcShare);
    m.put(
        "targets",
        checks().stream()
            .map(c -> Map.of("target", c.target(), "measured", c.measured(), "met", c.met()))
            .toList());
    return m;
  }
}
