package io.sluice.benchmark.transport;

import io.sluice.benchmark.Flags;
import java.nio.file.Path;
import java.util.List;

/** The command line of {@link TransportBenchmark}; {@link #FLAGS} says what each setting means. */
record BenchmarkSettings(
    int seconds,
    int warmupSeconds,
    int rounds,
    List<Integer> connections,
    Path output,
    boolean iperf,
    String command) {

  static final Flags FLAGS =
      new Flags("Usage: TransportBenchmark [flags]")
          .option("seconds", "N", "5", "measured seconds per run")
          .option("warmup", "N", "2", "warm-up seconds before each measured run (iperf3's -O)")
          .option("rounds", "N", "3", "repetitions of the whole set, interleaved; medians reported")
          .option("connections", "LIST", "1,4", "connection counts of the bulk runs (iperf3 -P)")
          .option(
              "output",
              "PATH",
              "docs/benchmarks/transport.md",
              "Markdown file whose 'transport' section is rewritten; '-' prints only")
          .toggle("no-iperf", "do not run iperf3 (no ratios, the bulk target is not evaluated)")
          .option("command", "TEXT", "the command line to state in the report");

  static BenchmarkSettings of(Flags.Values v) {
    return new BenchmarkSettings(
        v.positive("seconds"),
        v.nonNegative("warmup"),
        v.positive("rounds"),
        v.positiveList("connections", 128),
        v.pathOrNone("output"),
        !v.given("no-iperf"),
        v.text("command", "TransportBenchmark " + v.arguments()));
  }
}
