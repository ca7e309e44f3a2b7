package io.sluice.benchmark.tpc;

import static io.sluice.benchmark.tpc.Figures.bytes;
import static io.sluice.benchmark.tpc.Figures.ratio;
import static io.sluice.benchmark.tpc.Figures.seconds;

import io.sluice.benchmark.MetricsPoller;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The body of the {@code tpc} section of docs/benchmarks/tpc.md. */
final class TpcMarkdown {
  private TpcMarkdown() {}

  /** {@code setup}: a paragraph on what ran; {@code chartLink}: relative path or null. */
  static String body(TpcSummary s, String setup, String chartLink) {
    StringBuilder md = new StringBuilder();
    md.append(setup.strip()).append("\n\n");
    if (chartLink != null) {
      md.append(
              s.suite == Suite.TPCDS && s.compares()
                  ? "![Sluice's median wall time over the built-in shuffle's, per query]("
                  : "![Median wall time per query and mode](")
          .append(chartLink)
          .append(")\n\n");
    }
    List<Mode> modes = s.modes;
    md.append("| Query |");
    for (Mode m : modes) {
      md.append(' ').append(m.label()).append(" (s) |");
    }
    if (s.compares()) {
      md.append(" sluice / builtin |");
    }
    md.append(
        " Shuffle written | Shuffle read | Task CPU (s) | Spark JVM CPU (s) | Task GC (s) |"
            + "\n|---|");
    md.append("---:|".repeat(modes.size() + (s.compares() ? 1 : 0) + 5)).append('\n');
    for (String q : s.queries) {
      md.append("| ").append(q).append(" |");
      for (Mode m : modes) {
        QueryStats st = s.get(q, m);
        md.append(' ')
            .append(seconds(st.medianMs()))
            .append(" (")
            .append(seconds(st.minMs()))
            .append('-')
            .append(seconds(st.maxMs()))
            .append(") |");
      }
      if (s.compares()) {
        md.append(' ').append(ratio(s.ratio(q))).append(" |");
      }
      md.append(' ').append(perMode(s, q, st -> bytes(st.shuffleWriteBytes()))).append(" |");
      md.append(' ').append(perMode(s, q, st -> bytes(st.shuffleReadBytes()))).append(" |");
      md.append(' ').append(perMode(s, q, st -> seconds(st.cpuMs()))).append(" |");
      md.append(' ').append(perMode(s, q, st -> seconds(st.jvmCpuMs()))).append(" |");
      md.append(' ').append(perMode(s, q, st -> seconds(st.taskGcMs()))).append(" |\n");
    }
    md.append("| **total** |");
    for (Mode m : modes) {
      md.append(" **").append(seconds(s.totalMs(m))).append("** |");
    }
    if (s.compares()) {
      md.append(" **").append(ratio(s.totalRatio())).append("** |");
    }
    md.append(' ');
    for (int i = 0; i < modes.size(); i++) {
      md.append(i > 0 ? " / " : "").append(bytes(s.totalShuffleWriteBytes(modes.get(i))));
    }
    md.append(" | | | | |\n\n");
    md.append(
            "Times are medians over the rounds, with the range in brackets. Where a cell has "
                + "two figures they are ")
        .append(String.join(" / ", modes.stream().map(Mode::label).toList()))
        .append(
            ". Shuffle bytes are Spark's task metrics (compressed bytes); task "
                + "CPU and GC are summed over the query's tasks; Spark JVM CPU is the whole driver JVM's "
                + "CPU time during the query (in local mode it runs the tasks, and it also counts threads "
                + "that task metrics miss, such as the shuffle client's network threads).\n\n");

    md.append(cpuPerGib(s));
    md.append(jvmThreads(s));

    md.append("Stage times of the median round (s, in the order the stages ran):\n\n| Query |");
    for (Mode m : modes) {
      md.append(' ').append(m.label()).append(" |");
    }
    md.append("\n|---|").append("---|".repeat(modes.size())).append('\n');
    for (String q : s.queries) {
      md.append("| ").append(q).append(" |");
      for (Mode m : modes) {
        md.append(' ').append(String.join(" + ", s.get(q, m).stagesOfMedianRound())).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');

    if (s.serversMeasured()) {
      md.append(
          "Sluice's servers during each query (peaks: the larger of the two servers, highest "
              + "over the rounds; GC, CPU and bytes flushed: both servers added, median over the "
              + "rounds):\n\n| Query | Peak direct memory | Peak push memory | Peak heap | Server GC "
              + "(ms) | Server CPU (s) | Flushed to disk | Push rejections |\n"
              + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
      for (String q : s.queries) {
        QueryStats st = s.get(q, Mode.SLUICE);
        md.append("| ")
            .append(q)
            .append(" | ")
            .append(bytes(st.serverPeakDirectBytes()))
            .append(" | ")
            .append(bytes(st.serverPeakPushBytes()))
            .append(" | ")
            .append(bytes(st.serverPeakHeapBytes()))
            .append(" | ")
            .append(Math.round(st.serverGcMs()))
            .append(" | ")
            .append(seconds(st.serverCpuMs()))
            .append(" | ")
            .append(bytes(st.serverFlushedBytes()))
            .append(" | ")
            .append(st.pushRejections())
            .append(" |\n");
      }
      md.append('\n');
      md.append(serverThreads(s));
    }

    md.append(profiles(s));
    md.append("Answers: ");
    if (s.answersAgree()) {
      md.append("every query gave the same row count and checksum in every round and mode.\n");
    } else {
      md.append("**disagreements or failures**:\n\n");
      s.mismatches.forEach(x -> md.append("- ").append(x).append('\n'));
      s.failedRuns.forEach(x -> md.append("- ").append(x).append('\n'));
    }
    for (String q : s.queries) {
      for (Mode m : modes) {
        QueryStats st = s.get(q, m);
        if (!st.notes().isEmpty()) {
          md.append("- ")
              .append(q)
              .append(", ")
              .append(m.label())
              .append(": ")
              .append(String.join("; ", st.notes()))
              .append('\n');
        }
      }
    }
    md.append('\n');
    List<String> targets = s.targets();
    if (!targets.isEmpty()) {
      md.append("Targets (this machine, one invocation):\n\n");
      targets.forEach(t -> md.append("- ").append(t).append('\n'));
      md.append('\n');
    }
    if (s.suite == Suite.TPCDS) {
      return md.append("Queries: the TPC-DS texts of Spark's own TPC-DS tests, unchanged.\n")
          .toString();
    }
    md.append("Queries:\n\n");
    for (QuerySpec q : QuerySpec.values()) {
      if (s.queries.contains(q.label())) {
        md.append("- `").append(q.label()).append("`: ").append(q.description()).append('\n');
      }
    }
    return md.toString();
  }

  /**
   * Where the Spark JVM's CPU went in the query that is slowest against the built-in shuffle, in
   * each mode (--profile): Java execution samples by the package and by the method on top of the
   * stack, the innermost Sluice methods, and threads in native code. Empty without profiles.
   */
  private static String profiles(TpcSummary s) {
    String q = s.compares() ? s.worstQuery() : "";
    Map<Mode, Map<String, Object>> byMode = s.profiles.get(q);
    if (byMode == null || !byMode.keySet().containsAll(s.modes)) {
      return "";
    }
    List<Mode> modes = s.modes;
    StringBuilder md = new StringBuilder();
    md.append("Profile of `")
        .append(q)
        .append("`, the query slowest against the built-in shuffle " + "(")
        .append(ratio(s.ratio(q)))
        .append(
            "), from a flight recording of each mode's Spark "
                + "JVM (`settings=profile`, the last round, over the query's span; recordings ");
    md.append(
            String.join(
                ", ", modes.stream().map(m -> "`" + byMode.get(m).get("recording") + "`").toList()))
        .append("). Java execution samples, as a share of each mode's ");
    md.append(
            String.join(
                " / ",
                modes.stream()
                    .map(m -> String.valueOf(Figures.num(byMode.get(m), "samples")))
                    .toList()))
        .append(" samples.\n\n");

    md.append("By the package of the method on top of the stack (its self time):\n\n");
    shareTable(md, "Package", modes, byMode, "packages");
    md.append("By the method on top of the stack:\n\n");
    shareTable(md, "Method", modes, byMode, "topFrames");
    Map<String, Object> sluice = byMode.get(Mode.SLUICE);
    if (sluice != null) {
      md.append(
          "Sluice mode, by the innermost Sluice method on the stack (the rest ran no "
              + "Sluice code):\n\n");
      shareTable(md, "Method", List.of(Mode.SLUICE), byMode, "sluiceFrames");
    }
    int rows =
        modes.stream()
            .mapToInt(m -> Figures.list(byMode.get(m), "nativeCalls").size())
            .max()
            .orElse(0);
    if (rows == 0) {
      return md.toString();
    }
    md.append(
        "Threads in native code (not waiting), by thread and native method, in samples "
            + "(JFR samples a few native threads per period):\n\n| ");
    md.append(String.join(" | ", modes.stream().map(Mode::label).toList())).append(" |\n|");
    md.append("---|".repeat(modes.size())).append('\n');
    for (int i = 0; i < Math.min(rows, 6); i++) {
      md.append('|');
      for (Mode m : modes) {
        List<Map<String, Object>> c = Figures.list(byMode.get(m), "nativeCalls");
        md.append(' ')
            .append(
                i < c.size()
                    ? "`" + c.get(i).get("name") + "` " + Figures.num(c.get(i), "samples")
                    : "")
            .append(" |");
      }
      md.append('\n');
    }
    return md.append('\n').toString();
  }

  /** Rows of names with each mode's share of its samples, in the order of the first mode's. */
  private static void shareTable(
      StringBuilder md,
      String what,
      List<Mode> modes,
      Map<Mode, Map<String, Object>> byMode,
      String list) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (Mode m : modes) {
      Figures.list(byMode.get(m), list).forEach(c -> names.add(String.valueOf(c.get("name"))));
    }
    md.append("| ").append(what).append(" |");
    modes.forEach(m -> md.append(' ').append(m.label()).append(" |"));
    md.append("\n|---|").append("---:|".repeat(modes.size())).append('\n');
    for (String name : names) {
      md.append("| `").append(name).append("` |");
      for (Mode m : modes) {
        long total = Figures.num(byMode.get(m), "samples");
        long n =
            Figures.list(byMode.get(m), list).stream()
                .filter(c -> name.equals(c.get("name")))
                .mapToLong(c -> Figures.num(c, "samples"))
                .findFirst()
                .orElse(-1);
        md.append(' ')
            .append(
                n < 0
                    ? "(not in its top)"
                    : String.format(Locale.ROOT, "%.1f%%", total == 0 ? 0.0 : 100.0 * n / total))
            .append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
  }

  /**
   * CPU-seconds per GiB of shuffle written, for the Spark JVM (executor and driver) of each mode
   * and, through Sluice, for its servers' processes beside it: what each shuffled byte costs on
   * either side, and what Sluice's whole costs against the built-in shuffle's.
   */
  private static String cpuPerGib(TpcSummary s) {
    boolean servers = s.serversMeasured();
    // Without the servers' figures Sluice's whole is not known: no ratio rather than a flattering
    // one.
    boolean whole = s.compares() && servers;
    StringBuilder md =
        new StringBuilder(
            "CPU per GiB of shuffle written (CPU-seconds; Spark JVM: "
                + "the whole executor and driver JVM, tasks included; servers: both Sluice server "
                + "processes, measured apart from Spark):\n\n| Query |");
    for (Mode m : s.modes) {
      md.append(' ').append(m.label()).append(": Spark JVM |");
    }
    if (servers) {
      md.append(" sluice: servers |");
    }
    if (whole) {
      md.append(" sluice (JVM + servers) / builtin |");
    }
    int columns = s.modes.size() + (servers ? 1 : 0) + (whole ? 1 : 0);
    md.append("\n|---|").append("---:|".repeat(columns)).append('\n');
    double[] jvm = new double[s.modes.size()];
    double[] gib = new double[s.modes.size()];
    double serverCpu = 0;
    for (String q : s.queries) {
      md.append("| ").append(q).append(" |");
      for (int i = 0; i < s.modes.size(); i++) {
        QueryStats st = s.get(q, s.modes.get(i));
        jvm[i] += st.jvmCpuMs();
        gib[i] += st.shuffleWriteBytes() / GIB;
        md.append(' ').append(perGib(st.jvmCpuMs(), st.shuffleWriteBytes() / GIB)).append(" |");
      }
      if (servers) {
        QueryStats st = s.get(q, Mode.SLUICE);
        serverCpu += st.serverCpuMs();
        md.append(' ').append(perGib(st.serverCpuMs(), st.shuffleWriteBytes() / GIB)).append(" |");
      }
      if (whole) {
        QueryStats b = s.get(q, Mode.BUILTIN);
        QueryStats sl = s.get(q, Mode.SLUICE);
        md.append(' ')
            .append(
                ratio(
                    (sl.jvmCpuMs() + sl.serverCpuMs())
                        / sl.shuffleWriteBytes()
                        / (b.jvmCpuMs() / b.shuffleWriteBytes())))
            .append(" |");
      }
      md.append('\n');
    }
    md.append("| **all queries** |");
    for (int i = 0; i < s.modes.size(); i++) {
      md.append(" **").append(perGib(jvm[i], gib[i])).append("** |");
    }
    int sluice = s.modes.indexOf(Mode.SLUICE);
    if (servers) {
      md.append(" **").append(perGib(serverCpu, gib[sluice])).append("** |");
    }
    if (whole) {
      int builtin = s.modes.indexOf(Mode.BUILTIN);
      md.append(" **")
          .append(ratio((jvm[sluice] + serverCpu) / gib[sluice] / (jvm[builtin] / gib[builtin])))
          .append("** |");
    }
    return md.append("\n\n").toString();
  }

  /**
   * Where the Spark JVM's CPU went, by group of threads ({@code JvmThreadCpu}), per query and mode,
   * beside the servers' CPU: what Sluice adds to the machine outside the tasks, and what it saves
   * them.
   */
  private static String jvmThreads(TpcSummary s) {
    boolean measured =
        s.queries.stream()
            .allMatch(q -> s.modes.stream().allMatch(m -> !s.get(q, m).jvmThreadCpuMs().isEmpty()));
    if (!measured) {
      return "";
    }
    boolean servers = s.serversMeasured();
    StringBuilder md =
        new StringBuilder(
                "The Spark JVM's CPU by its threads (s; from "
                    + "`/proc/self/task`, median over the rounds; ")
            .append(String.join(" / ", s.modes.stream().map(Mode::label).toList()))
            .append(
                "). *tasks*: the executor's task threads; *shuffle client*: Sluice's client "
                    + "event loops, which send pushes and receive fetched blocks; *compiler*: the JIT; "
                    + "*other*: the rest of the process (the driver, Spark's own threads, threads that "
                    + "ended during the query)")
            .append(
                servers
                    ? "; beside them, Sluice's two servers (both added), which run on the "
                        + "same two cores here and on machines of their own in a cluster"
                    : "")
            .append(":\n\n| Query |");
    JvmThreadCpu.GROUPS.forEach(g -> md.append(' ').append(g).append(" |"));
    md.append(servers ? " Sluice's servers |" : "")
        .append(" all |\n|---|")
        .append("---:|".repeat(JvmThreadCpu.GROUPS.size() + (servers ? 2 : 1)))
        .append('\n');
    for (String q : s.queries) {
      md.append("| ").append(q).append(" |");
      for (String g : JvmThreadCpu.GROUPS) {
        md.append(' ')
            .append(perMode(s, q, st -> seconds(st.jvmThreadCpuMs().getOrDefault(g, 0.0))))
            .append(" |");
      }
      if (servers) {
        md.append(' ').append(seconds(s.get(q, Mode.SLUICE).serverCpuMs())).append(" |");
      }
      md.append(' ')
          .append(
              perMode(
                  s,
                  q,
                  st ->
                      seconds(
                          st.jvmThreadCpuMs().values().stream()
                                  .mapToDouble(Double::doubleValue)
                                  .sum()
                              + st.serverCpuMs())))
          .append(" |\n");
    }
    return md.append('\n').toString();
  }

  /**
   * Where the servers' CPU went, by group of threads ({@code sluice_server_cpu_seconds_total}), per
   * query: both servers added, medians over the rounds.
   */
  private static String serverThreads(TpcSummary s) {
    StringBuilder md =
        new StringBuilder(
            "The servers' CPU by their threads (s; "
                + "`sluice_server_cpu_seconds_total`, docs/metrics.md; both servers added, median over "
                + "the rounds). *network*: the event loops that take pushes into the push pool, answer "
                + "and send reads; *flush*: writing to disk; *compiler*: the JIT; *http*: answering "
                + "`/metrics`; *other*: the rest of the process:\n\n| Query |");
    MetricsPoller.THREAD_GROUPS.forEach(g -> md.append(' ').append(g).append(" |"));
    md.append(" all |\n|---|");
    MetricsPoller.THREAD_GROUPS.forEach(g -> md.append("---:|"));
    md.append("---:|\n");
    Map<String, Double> totals = new LinkedHashMap<>();
    for (String q : s.queries) {
      QueryStats st = s.get(q, Mode.SLUICE);
      md.append("| ").append(q).append(" |");
      double all = 0;
      for (String g : MetricsPoller.THREAD_GROUPS) {
        double ms = st.serverThreadCpuMs().getOrDefault(g, 0.0);
        all += ms;
        totals.merge(g, ms, Double::sum);
        md.append(' ').append(seconds(ms)).append(" |");
      }
      md.append(' ').append(seconds(all)).append(" |\n");
    }
    md.append("| **all queries** |");
    double all = 0;
    for (String g : MetricsPoller.THREAD_GROUPS) {
      double ms = totals.getOrDefault(g, 0.0);
      all += ms;
      md.append(" **").append(seconds(ms)).append("** |");
    }
    md.append(" **").append(seconds(all)).append("** |\n\n");
    return md.toString();
  }

  private static String perGib(double cpuMs, double gib) {
    return gib > 0 ? String.format(Locale.ROOT, "%.1f", cpuMs / 1000 / gib) : "n/a";
  }

  private static final double GIB = 1L << 30;

  private interface Cell {
    String of(QueryStats s);
  }

  private static String perMode(TpcSummary s, String q, Cell cell) {
    StringBuilder sb = new StringBuilder();
    for (Mode m : s.modes) {
      if (sb.length() > 0) {
        sb.append(" / ");
      }
      sb.append(cell.of(s.get(q, m)));
    }
    return sb.toString();
  }
}
