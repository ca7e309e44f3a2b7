package io.sluice.benchmark.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of a benchmark as data: written as JSON beside the benchmark's Markdown file and rendered
 * into it by {@link Renderer}, so that the tables can be rebuilt from the record alone ({@link
 * RenderRecords}).
 *
 * @param benchmark the section name, which is also the record's base name ({@code server} for
 *     docs/benchmarks/server.json)
 * @param document the Markdown file the section is in, beside the record ({@code server.md}); null
 *     until the record is written
 * @param title the section's heading
 * @param run when it ran, ISO-8601
 * @param machine cores, memory, disk, OS and JVM
 * @param command the command line that produced it
 * @param commit the checkout it measured ({@link io.sluice.benchmark.BenchmarkReport#commit})
 * @param settings what the run was configured with, in the order to show
 * @param tables the figures as shown
 * @param checks the targets and whether each was met
 * @param charts images of the figures, as paths relative to the Markdown file
 * @param figures the raw measurements behind the tables (per round, in bytes and seconds)
 */
public record BenchRecord(
    String benchmark,
    String document,
    String title,
    String run,
    String machine,
    String command,
    String commit,
    Map<String, String> settings,
    List<Table> tables,
    List<Check> checks,
    List<String> charts,
    Map<String, Object> figures) {

  public BenchRecord {
    settings = new LinkedHashMap<>(settings);
    tables = List.copyOf(tables);
    checks = List.copyOf(checks);
    // Records written before charts existed have none.
    charts = charts == null ? List.of() : List.copyOf(charts);
    figures = new LinkedHashMap<>(figures);
  }

  /** This record, as rendered into {@code document}. */
  public BenchRecord in(String document) {
    return new BenchRecord(
        benchmark, document, title, run, machine, command, commit, settings, tables, checks, charts,
        figures);
  }

  /** Whether every target was met. */
  public boolean met() {
    return checks.stream().allMatch(Check::met);
  }
}
