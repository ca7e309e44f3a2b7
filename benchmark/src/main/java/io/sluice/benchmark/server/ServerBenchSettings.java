package io.sluice.benchmark.server;

import io.sluice.benchmark.Flags;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The command line of {@link ServerBenchmark}; {@link #FLAGS} says what each setting means. */
record ServerBenchSettings(
    List<Integer> clients,
    int rounds,
    int runMib,
    int warmupMib,
    int bufferMib,
    int contractClients,
    int contractMib,
    int contractBufferMib,
    int sampleMillis,
    int iperfSeconds,
    int ddMib,
    boolean throughput,
    boolean contract,
    boolean iperf,
    boolean profile,
    boolean probes,
    Map<String, String> serverConf,
    Path home,
    Path workDir,
    Path output,
    String command) {

  static final Flags FLAGS =
      new Flags("Usage: ServerBenchmark [flags]")
          .option("clients", "LIST", "1,4,16", "client counts of the throughput runs")
          .option("rounds", "N", "3", "repetitions of the throughput runs, interleaved")
          .option("run-mib", "N", "4096", "MiB pushed per throughput run")
          .option(
              "warmup-mib",
              "N",
              "3072",
              "MiB pushed and read once per client count before the measured runs, so that the"
                  + " server's code is compiled for every load measured")
          .option("buffer-mib", "N", "512", "buffer.capacity of the throughput server")
          .option("contract-clients", "N", "16", "clients of the memory-contract run")
          .option("contract-mib", "N", "4096", "MiB pushed by the memory-contract run")
          .option("contract-buffer-mib", "N", "128", "buffer.capacity of the contract server")
          .option("sample-ms", "N", "50", "interval of the server's metrics sampling")
          .option("iperf-seconds", "N", "5", "length of each iperf3 run")
          .option("dd-mib", "N", "2048", "MiB written by each dd run")
          .toggle("no-throughput", "skip the throughput runs")
          .toggle("no-contract", "skip the memory-contract run")
          .toggle("no-iperf", "do not run iperf3 (no loopback limit, no ingest target)")
          .toggle("no-profile", "no flight recording of the servers")
          .toggle(
              "probes",
              "also measure the CPU floors of receiving as a server receives (ReceiveCopyProbe)"
                  + " and of sendfile (SendfileProbe), beside the server's CPU per GiB")
          .pairs(
              "server-conf",
              "a setting of the throughput server's configuration file (repeatable), e.g."
                  + " --server-conf flush.direct=all")
          .option("home", "PATH", ".", "the Sluice installation whose bin/ scripts and jars run")
          .option(
              "work-dir",
              "PATH",
              "benchmark/target/bench-server",
              "servers' configuration, data, logs, recordings")
          .option(
              "output",
              "PATH",
              "docs/benchmarks/server.md",
              "Markdown file whose 'server' section is rewritten; '-' prints only")
          .option("command", "TEXT", "the command line to state in the report");

  static ServerBenchSettings of(Flags.Values v) {
    return new ServerBenchSettings(
        v.positiveList("clients", 256),
        v.positive("rounds"),
        v.positive("run-mib"),
        v.nonNegative("warmup-mib"),
        v.positive("buffer-mib"),
        v.positive("contract-clients"),
        v.positive("contract-mib"),
        v.positive("contract-buffer-mib"),
        v.positive("sample-ms"),
        v.positive("iperf-seconds"),
        v.positive("dd-mib"),
        !v.given("no-throughput"),
        !v.given("no-contract"),
        !v.given("no-iperf"),
        !v.given("no-profile"),
        v.given("probes"),
        v.pairs("server-conf"),
        v.path("home"),
        v.path("work-dir"),
        v.pathOrNone("output"),
        v.text("command", "ServerBenchmark " + v.arguments()));
  }
}
