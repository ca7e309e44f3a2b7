package io.sluice.benchmark.transport;

import java.nio.file.Path;
import java.util.ArrayList;
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
record BenchmarkSettings(int seconds, int warmupSeconds, int rounds, List<Integer> connections,
    Path output, boolean iperf, String command) {

  static final String USAGE = String.join("\n",
      "Usage: TransportBenchmark [flags]",
      "  --seconds N         measured seconds per run (default 5)",
      "  --warmup N          warm-up seconds before each measured run (default 2)",
      "  --rounds N          repetitions of the whole set, interleaved; medians reported (default 3)",
      "  --connections LIST  connection counts of the bulk runs, comma separated (default 1,4)",
      "  --output PATH       Markdown file whose 'transport' section is rewritten",
      "                      (default docs/benchmarks.md; '-' prints only)",
      "  --no-iperf          do not run iperf3 (no ratios, the bulk target is not evaluated)",
      "  --command TEXT      the command line to state in the report");

  static BenchmarkSettings parse(String[] args) {
    int seconds = 5;
    int warmup = 2;
    int rounds = 3;
    List<Integer> connections = List.of(1, 4);
    Path output = Path.of("docs", "benchmarks.md");
    boolean iperf = true;
    String command = "TransportBenchmark " + String.join(" ", args);
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      switch (flag) {
        case "--seconds" -> seconds = positive(flag, value(args, ++i, flag));
        case "--warmup" -> warmup = nonNegative(flag, value(args, ++i, flag));
        case "--rounds" -> rounds = positive(flag, value(args, ++i, flag));
        case "--connections" -> connections = connectionList(value(args, ++i, flag));
        case "--output" -> {
          String path = value(args, ++i, flag);
          output = path.equals("-") ? null : Path.of(path);
        }
        case "--no-iperf" -> iperf = false;
        case "--command" -> command = value(args, ++i, flag);
        default -> throw new IllegalArgumentException("unknown flag '" + flag + "'\n" + USAGE);
      }
    }
    return new BenchmarkSettings(seconds, warmup, rounds, connections, output, iperf, command);
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      throw new IllegalArgumentException(flag + " needs a value\n" + USAGE);
    }
    return args[i];
  }

  private static int positive(String flag, String text) {
    int n = number(flag, text);
    if (n < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, got " + text);
    }
    return n;
  }

  private static int nonNegative(String flag, String text) {
    int n = number(flag, text);
    if (n < 0) {
      throw new IllegalArgumentException(flag + " must not be negative, got " + text);
    }
    return n;
  }

  private static int number(String flag, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " takes a whole number, got '" + text + "'");
    }
  }

  private static List<Integer> connectionList(String text) {
    List<Integer> counts = new ArrayList<>();
    for (String part : text.split(",")) {
      int n = positive("--connections", part);
      if (n > 128) {
        throw new IllegalArgumentException("--connections takes counts up to 128, got " + n);
      }
      if (!counts.contains(n)) {
        counts.add(n);
      }
    }
    return List.copyOf(counts);
  }
}
