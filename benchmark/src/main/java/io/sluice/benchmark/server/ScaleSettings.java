package io.sluice.benchmark.server;

import io.sluice.benchmark.Flags;
import java.nio.file.Path;

/** The command line of {@link ScaleBenchmark}; {@link #FLAGS} says what each setting means. */
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

  static final Flags FLAGS =
      new Flags("Usage: ScaleBenchmark [flags]")
          .option(
              "pushers",
              "N",
              "900",
              "well-behaved clients of the connections part, each a map task pushing through"
                  + " MapOutputPusher on a connection of its own")
          .option("push-mib", "N", "1", "MiB each of them pushes")
          .option("pipeliners", "N", "80", "clients pipelining pushes without reading an answer")
          .option("pipeline-frames", "N", "4", "push frames each pipeliner writes")
          .option("pipeline-frame-kib", "N", "1024", "size of those frames")
          .option("stallers", "N", "20", "clients stopping in the middle of a push frame")
          .option("stall-frame-mib", "N", "4", "size of the frame a staller starts; it sends half")
          .toggle("hostile-first", "hostile clients write a second before the others start")
          .option("readers", "N", "16", "threads reading the pushed data back")
          .option("buffer-mib", "N", "256", "buffer.capacity of the servers")
          .option("read-mib", "N", "64", "read.buffer.capacity of the servers")
          .option(
              "max-connections",
              "N",
              "1024",
              "transport.max.connections of the connections server (the product's default)")
          .option("maps", "N", "10000", "maps of the commit-scale shuffle")
          .option("partitions", "N", "10000", "partitions of the commit-scale shuffle")
          .option("commits-in-flight", "N", "16", "commit requests in flight in that part")
          .option(
              "large-partitions",
              "N",
              "8000",
              "partitions of the shuffle unregistered, one flushed block (a data and an index"
                  + " file) each")
          .option("latency-seconds", "N", "5", "latencies measured without the unregister")
          .option("sample-ms", "N", "50", "interval of the server's metrics sampling")
          .toggle("no-connections", "skip the 1,000-connection part")
          .toggle("no-commits", "skip the commit-scale part")
          .toggle("no-unregister", "skip the unregister-latency part")
          .option("home", "PATH", ".", "the Sluice installation whose bin/ scripts and jars run")
          .option("work-dir", "PATH", "benchmark/target/bench-scale", "servers' conf, data, logs")
          .option(
              "output",
              "PATH",
              "docs/benchmarks/scale.md",
              "Markdown file whose 'scale' section is rewritten; '-' prints only")
          .option("command", "TEXT", "the command line to state in the report");

  /** Connections the connections part opens: every client's, beside the admin's. */
  int clients() {
    return pushers + pipeliners + stallers;
  }

  static ScaleSettings of(Flags.Values v) {
    return new ScaleSettings(
        v.positive("pushers"),
        v.positive("push-mib"),
        v.nonNegative("pipeliners"),
        v.positive("pipeline-frames"),
        v.positive("pipeline-frame-kib"),
        v.nonNegative("stallers"),
        v.positive("stall-frame-mib"),
        v.given("hostile-first"),
        v.positive("readers"),
        v.positive("buffer-mib"),
        v.positive("read-mib"),
        v.positive("max-connections"),
        v.positive("maps"),
        v.positive("partitions"),
        v.positive("commits-in-flight"),
        v.positive("large-partitions"),
        v.positive("latency-seconds"),
        v.positive("sample-ms"),
        !v.given("no-connections"),
        !v.given("no-commits"),
        !v.given("no-unregister"),
        v.path("home"),
        v.path("work-dir"),
        v.pathOrNone("output"),
        v.text("command", "ScaleBenchmark " + v.arguments()));
  }
}
