package io.sluice.benchmark.transport;

import io.sluice.benchmark.Flags;
import java.nio.file.Path;
import java.util.List;

/**
 * The command-line flags of {@link TransportBenchmark}.
 *
 * @param seconds measured seconds of each run
 * @param warmupSeconds seconds each run goes on before it is measured (iperf3's {@code -O})
 * @param rounds how many times the whole set of runs is repeated, interleaved; medians are reported
 * @param connections connection counts of the bulk runs (iperf3 {@code -P} alike)
 * @param output the Markdown file to write the section to, or {@code null} to only print
 * @param iperf whether to measure iperf3 beside Sluice
 * @param command the command line to state in the report
 */
record BenchmarkSettings(
    int seconds,
    int warmupSeconds,
    int rounds,
    List<Integer> connections,
    Path output,
    boolean iperf,
    String command) {

  static final String USAGE =
      String.join(
          "\n",
          "Usage: TransportBenchmark [flags]",
          "  --seconds N         measured seconds per run (default 5)",
          "  --warmup N          warm-up seconds before each measured run (default 2)",
          "  --rounds N          repetitions of the whole set, interleaved; medians reported (default 3)",
          "  --connections LIST  connection counts of the bulk runs, comma separated (default 1,4)",
          "  --output PATH       Markdown file whose 'transport' section is rewritten",
          "                      (default docs/benchmarks/transport.md; '-' prints only)",
          "  --no-iperf          do not run iperf3 (no ratios, the bulk target is not evaluated)",
          "  --command TEXT      the command line to state in the report");

  static BenchmarkSettings parse(String[] args) {
    int seconds = 5;
    int warmup = 2;
    int rounds = 3;
    List<Integer> connections = List.of(1, 4);
    Path output = Path.of("docs", "benchmarks", "transport.md");
    boolean iperf = true;
    String command = "TransportBenchmark " + String.join(" ", args);
    Flags flags = new Flags(args, USAGE);
    while (flags.hasNext()) {
      String flag = flags.next();
      switch (flag) {
        case "--seconds" -> seconds = flags.positive(flag);
        case "--warmup" -> warmup = flags.nonNegative(flag);
        case "--rounds" -> rounds = flags.positive(flag);
        case "--connections" -> connections = flags.positiveList(flag, 128);
        case "--output" -> output = flags.pathOrNone(flag);
        case "--no-iperf" -> iperf = false;
        case "--command" -> command = flags.value(flag);
        default -> throw flags.unknown(flag);
      }
    }
    return new BenchmarkSettings(seconds, warmup, rounds, connections, output, iperf, command);
  }
}
