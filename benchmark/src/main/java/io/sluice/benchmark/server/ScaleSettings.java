package io.sluice.benchmark.server;

import io.sluice.benchmark.Flags;
import java.nio.file.Path;

/**
 * The command-line flags of {@link ScaleBenchmark}.
 *
 * @param pushers well-behaved clients of the connections part, each a map task pushing through
 *     {@code MapOutputPusher} on a connection of its own
 * @param pushMib MiB each of them pushes
 * @param pipeliners hostile clients that pipeline pushes and never read an answer
 * @param pipelineFrames push frames each pipeliner writes
 * @param pipelineFrameKib size of each of those frames
 * @param stallers hostile clients that stop in the middle of a push frame
 * @param stallFrameMib size of the frame a staller starts (it sends half of it)
 * @param hostileFirst whether the hostile clients write a second before the well-behaved ones
 *     start, rather than with them
 * @param readers threads reading the well-behaved clients' data back
 * @param bufferMib {@code buffer.capacity} of the connections and unregister servers
 * @param readMib their {@code read.buffer.capacity}
 * @param maxConnections {@code transport.max.connections} of the connections server
 * @param maps maps of the commit-scale shuffle
 * @param partitions partitions of the commit-scale shuffle
 * @param commitsInFlight commit requests in flight at once in the commit-scale part
 * @param largePartitions partitions of the large shuffle that is unregistered, one flushed block (a
 *     data file and an index file) each
 * @param latencySeconds how long commit and fetch latencies are measured without the unregister
 * @param sampleMillis interval of the server's metrics sampling
 * @param connections whether to run the connections part
 * @param commits whether to run the commit-scale part
 * @param unregister whether to run the unregister-latency part
 * @param home the Sluice installation whose {@code bin/} scripts and jars are used
 * @param workDir where the servers' configuration, data and logs go
 * @param output the Markdown file whose 'scale' section is rewritten, or null to only print
 * @param command the command line to state in the report
 */
record ScaleSettings(
    int pushers,
    int pushMib,
    int pipeliners,
    int pipelineFrames,
    int pipelineFrameKib,
    int stallers,
    int stallFrameMib,
    boolean hostileFirst,
    int readers,
    int bufferMib,
    int readMib,
    int maxConnections,
    int maps,
    int partitions,
    int commitsInFlight,
    int largePartitions,
    int latencySeconds,
    int sampleMillis,
    boolean connections,
    boolean commits,
    boolean unregister,
    Path home,
    Path workDir,
    Path output,
    String command) {

  static final String USAGE =
      String.join(
          "\n",
          "Usage: ScaleBenchmark [flags]",
          "  --pushers N             well-behaved pushing clients (default 900)",
          "  --push-mib N            MiB each of them pushes (default 1)",
          "  --pipeliners N          clients pipelining pushes without reading (default 80)",
          "  --pipeline-frames N     push frames each pipeliner writes (default 4)",
          "  --pipeline-frame-kib N  size of those frames (default 1024)",
          "  --stallers N            clients stopping in the middle of a push frame (default 20)",
          "  --stall-frame-mib N     size of the frame a staller starts; it sends half (default 4)",
          "  --hostile-first         hostile clients write a second before the others start",
          "  --readers N             threads reading the pushed data back (default 16)",
          "  --buffer-mib N          buffer.capacity of the servers (default 256)",
          "  --read-mib N            read.buffer.capacity of the servers (default 64)",
          "  --max-connections N     transport.max.connections of the connections server",
          "                          (default 1024, the product's default)",
          "  --maps N                maps of the commit-scale shuffle (default 10000)",
          "  --partitions N          partitions of the commit-scale shuffle (default 10000)",
          "  --commits-in-flight N   commit requests in flight in that part (default 16)",
          "  --large-partitions N    partitions of the shuffle unregistered (default 8000)",
          "  --latency-seconds N     latencies measured without the unregister (default 5)",
          "  --sample-ms N           interval of the server's metrics sampling (default 50)",
          "  --no-connections        skip the 1,000-connection part",
          "  --no-commits            skip the commit-scale part",
          "  --no-unregister         skip the unregister-latency part",
          "  --home PATH             the Sluice installation to run (default .)",
          "  --work-dir PATH         servers' conf, data, logs (default benchmark/target/bench-scale)",
          "  --output PATH           Markdown file whose 'scale' section is rewritten",
          "                          (default docs/benchmarks/scale.md; '-' prints only)",
          "  --command TEXT          the command line to state in the report");

  /** Connections the connections part opens: every client's, beside the admin's. */
  int clients() {
    return pushers + pipeliners + stallers;
  }

  static ScaleSettings parse(String[] args) {
    int pushers = 900;
    int pushMib = 1;
    int pipeliners = 80;
    int pipelineFrames = 4;
    int pipelineFrameKib = 1024;
    int stallers = 20;
    int stallFrameMib = 4;
    boolean hostileFirst = false;
    int readers = 16;
    int bufferMib = 256;
    int readMib = 64;
    int maxConnections = 1024;
    int maps = 10_000;
    int partitions = 10_000;
    int commitsInFlight = 16;
    int largePartitions = 8_000;
    int latencySeconds = 5;
    int sampleMillis = 50;
    boolean connections = true;
    boolean commits = true;
    boolean unregister = true;
    Path home = Path.of(".");
    Path workDir = Path.of("benchmark", "target", "bench-scale");
    Path output = Path.of("docs", "benchmarks", "scale.md");
    String command = "ScaleBenchmark " + String.join(" ", args);
    Flags flags = new Flags(args, USAGE);
    while (flags.hasNext()) {
      String flag = flags.next();
      switch (flag) {
        case "--pushers" -> pushers = flags.positive(flag);
        case "--push-mib" -> pushMib = flags.positive(flag);
        case "--pipeliners" -> pipeliners = flags.nonNegative(flag);
        case "--pipeline-frames" -> pipelineFrames = flags.positive(flag);
        case "--pipeline-frame-kib" -> pipelineFrameKib = flags.positive(flag);
        case "--stallers" -> stallers = flags.nonNegative(flag);
        case "--stall-frame-mib" -> stallFrameMib = flags.positive(flag);
        case "--hostile-first" -> hostileFirst = true;
        case "--readers" -> readers = flags.positive(flag);
        case "--buffer-mib" -> bufferMib = flags.positive(flag);
        case "--read-mib" -> readMib = flags.positive(flag);
        case "--max-connections" -> maxConnections = flags.positive(flag);
        case "--maps" -> maps = flags.positive(flag);
        case "--partitions" -> partitions = flags.positive(flag);
        case "--commits-in-flight" -> commitsInFlight = flags.positive(flag);
        case "--large-partitions" -> largePartitions = flags.positive(flag);
        case "--latency-seconds" -> latencySeconds = flags.positive(flag);
        case "--sample-ms" -> sampleMillis = flags.positive(flag);
        case "--no-connections" -> connections = false;
        case "--no-commits" -> commits = false;
        case "--no-unregister" -> unregister = false;
        case "--home" -> home = Path.of(flags.value(flag));
        case "--work-dir" -> workDir = Path.of(flags.value(flag));
        case "--output" -> output = flags.pathOrNone(flag);
        case "--command" -> command = flags.value(flag);
        default -> throw flags.unknown(flag);
      }
    }
    return new ScaleSettings(
        pushers,
        pushMib,
        pipeliners,
        pipelineFrames,
        pipelineFrameKib,
        stallers,
        stallFrameMib,
        hostileFirst,
        readers,
        bufferMib,
        readMib,
        maxConnections,
        maps,
        partitions,
        commitsInFlight,
        largePartitions,
        latencySeconds,
        sampleMillis,
        connections,
        commits,
        unregister,
        home,
        workDir,
        output,
        command);
  }
}
