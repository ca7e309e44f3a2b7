package io.sluice.benchmark.server;

import io.sluice.benchmark.Flags;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command-line flags of {@link ServerBenchmark}.
 *
 * @param clients client counts of the throughput runs (each run has as many readers)
 * @param rounds how many times the throughput runs (and the machine's limits) are measured,
 *     interleaved; medians are reported
 * @param runMib MiB pushed by each throughput run, shared among its clients
 * @param warmupMib MiB pushed (and read) once at each client count before the measured runs, so
 *     that the server's code is compiled for every load measured when measuring starts
 * @param bufferMib the throughput server's {@code buffer.capacity}
 * @param contractClients clients of the memory-contract run
 * @param contractMib MiB pushed by the memory-contract run
 * @param contractBufferMib the contract server's {@code buffer.capacity}
 * @param sampleMillis interval of the server's metrics sampling
 * @param iperfSeconds length of each iperf3 run
 * @param ddMib MiB written by each dd run
 * @param throughput whether to do the throughput runs
 * @param contract whether to do the memory-contract run
 * @param iperf whether to measure loopback with iperf3
 * @param profile whether the servers record a flight recording
 * @param probes whether to measure the machine probes too: a bare receive into a pool ({@link
 *     ReceiveCopyProbe}) and sendfile of a flushed file ({@link SendfileProbe}), the floors the
 *     report sets the server's CPU per GiB against
 * @param serverConf extra configuration of the throughput server ({@code --server-conf k=v})
 * @param home the Sluice installation whose {@code bin/} scripts and jars are used
 * @param workDir where the servers' configuration, data, logs and recordings go
 * @param output the Markdown file whose 'server' section is rewritten, or null to only print
 * @param command the command line to state in the report
 */
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

  static final String USAGE =
      String.join(
          "\n",
          "Usage: ServerBenchmark [flags]",
          "  --clients LIST          client counts of the throughput runs (default 1,4,16)",
          "  --rounds N              repetitions of the throughput runs, interleaved (default 3)",
          "  --run-mib N             MiB pushed per throughput run (default 4096)",
          "  --warmup-mib N          MiB pushed and read per client count first (default 3072)",
          "  --buffer-mib N          buffer.capacity of the throughput server (default 512)",
          "  --contract-clients N    clients of the memory-contract run (default 16)",
          "  --contract-mib N        MiB pushed by the memory-contract run (default 4096)",
          "  --contract-buffer-mib N buffer.capacity of the contract server (default 128)",
          "  --sample-ms N           interval of the server's metrics sampling (default 50)",
          "  --iperf-seconds N       length of each iperf3 run (default 5)",
          "  --dd-mib N              MiB written by each dd run (default 2048)",
          "  --no-throughput         skip the throughput runs",
          "  --no-contract           skip the memory-contract run",
          "  --no-iperf              do not run iperf3 (no loopback limit, no ingest target)",
          "  --no-profile            no flight recording of the servers",
          "  --probes                also measure the CPU floors of receiving as a server",
          "                          receives and of sendfile, beside the server's CPU per GiB",
          "  --server-conf k=v       a setting of the throughput server's configuration file",
          "                          (repeatable), e.g. --server-conf flush.direct=all",
          "  --home PATH             the Sluice installation to run (default .)",
          "  --work-dir PATH         servers' conf, data, logs, recordings",
          "                          (default benchmark/target/bench-server)",
          "  --output PATH           Markdown file whose 'server' section is rewritten",
          "                          (default docs/benchmarks/server.md; '-' prints only)",
          "  --command TEXT          the command line to state in the report");

  static ServerBenchSettings parse(String[] args) {
    List<Integer> clients = List.of(1, 4, 16);
    int rounds = 3;
    int runMib = 4096;
    int warmupMib = 3072;
    int bufferMib = 512;
    int contractClients = 16;
    int contractMib = 4096;
    int contractBufferMib = 128;
    int sampleMillis = 50;
    int iperfSeconds = 5;
    int ddMib = 2048;
    boolean throughput = true;
    boolean contract = true;
    boolean iperf = true;
    boolean profile = true;
    boolean probes = false;
    Map<String, String> serverConf = new LinkedHashMap<>();
    Path home = Path.of(".");
    Path workDir = Path.of("benchmark", "target", "bench-server");
    Path output = Path.of("docs", "benchmarks", "server.md");
    String command = "ServerBenchmark " + String.join(" ", args);
    Flags flags = new Flags(args, USAGE);
    while (flags.hasNext()) {
      String flag = flags.next();
      switch (flag) {
        case "--clients" -> clients = flags.positiveList(flag, 256);
        case "--rounds" -> rounds = flags.positive(flag);
        case "--run-mib" -> runMib = flags.positive(flag);
        case "--warmup-mib" -> warmupMib = flags.nonNegative(flag);
        case "--buffer-mib" -> bufferMib = flags.positive(flag);
        case "--contract-clients" -> contractClients = flags.positive(flag);
        case "--contract-mib" -> contractMib = flags.positive(flag);
        case "--contract-buffer-mib" -> contractBufferMib = flags.positive(flag);
        case "--sample-ms" -> sampleMillis = flags.positive(flag);
        case "--iperf-seconds" -> iperfSeconds = flags.positive(flag);
        case "--dd-mib" -> ddMib = flags.positive(flag);
        case "--no-throughput" -> throughput = false;
        case "--no-contract" -> contract = false;
        case "--no-iperf" -> iperf = false;
        case "--no-profile" -> profile = false;
        case "--probes" -> probes = true;
        case "--server-conf" -> flags.keyValue(flag, serverConf);
        case "--home" -> home = Path.of(flags.value(flag));
        case "--work-dir" -> workDir = Path.of(flags.value(flag));
        case "--output" -> output = flags.pathOrNone(flag);
        case "--command" -> command = flags.value(flag);
        default -> throw flags.unknown(flag);
      }
    }
    return new ServerBenchSettings(
        clients,
        rounds,
        runMib,
        warmupMib,
        bufferMib,
        contractClients,
        contractMib,
        contractBufferMib,
        sampleMillis,
        iperfSeconds,
        ddMib,
        throughput,
        contract,
        iperf,
        profile,
        probes,
        Map.copyOf(serverConf),
        home,
        workDir,
        output,
        command);
  }
}
