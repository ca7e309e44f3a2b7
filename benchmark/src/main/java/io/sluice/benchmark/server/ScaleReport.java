package io.sluice.benchmark.server;

import static io.sluice.benchmark.Format.count;
import static io.sluice.benchmark.Format.mib;

import io.sluice.benchmark.LatencyStats;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders {@link ScaleResults} as the {@code scale} section of {@code docs/benchmarks/scale.md}.
 */
final class ScaleReport {
  private final ScaleSettings settings;
  private final ScaleResults results;

  ScaleReport(ScaleSettings settings, ScaleResults results) {
    this.settings = settings;
    this.results = results;
  }

  /** What did not hold: a bound passed, data lost, a server gone. Empty when all held. */
  List<String> failures() {
    List<String> failures = new ArrayList<>();
    ScaleResults.Connections c = results.connections;
    if (c != null) {
      if (!c.directHeld()) {
        failures.add("the server's direct memory passed -XX:MaxDirectMemorySize");
      }
      if (!c.pushPoolHeld()) {
        failures.add(
            String.format(
                Locale.ROOT,
                "the push pool held %,.0f bytes, more than " + "buffer.capacity (%,d bytes)",
                c.memory().peaks().pushHeld(),
                c.server().bufferCapacity()));
      }
      if (!c.readMemoryHeld()) {
        failures.add("reads from memory passed read.buffer.capacity");
      }
      if (!c.networkHeld()) {
        failures.add("the network pool passed its allowance");
      }
      if (!c.heapHeld()) {
        failures.add("the server's heap in use passed -Xmx");
      }
      if (!c.intact()) {
        failures.add("the well-behaved clients' data did not read back intact");
      }
      if (!c.serverAlive()) {
        failures.add("the server of the connections part died");
      }
    }
    if (results.commits != null && results.commits.countsProblem() != null) {
      failures.add("committed counts read back wrong: " + results.commits.countsProblem());
    }
    if (results.unregister != null && results.unregister.fetchProblems() > 0) {
      failures.add(
          "the small application's fetches found problems: "
              + results.unregister.firstFetchProblem());
    }
    return failures;
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("Real servers, each started with `bin/start-server.sh` in a JVM of its own (heap, ")
        .append("direct memory limit and GC flags from `ServerJvmOptions`), on 127.0.0.1 with ")
        .append("one local directory on the repository's disk; every client is simulated in the ")
        .append("benchmark JVM (`")
        .append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        .append("`), on connections of their own that share one event-loop group of 2 threads. ")
        .append("The server's `/metrics` are sampled every ")
        .append(settings.sampleMillis())
        .append(" ms; a peak between two samples is not seen, so peaks are lower bounds. ")
        .append("*Direct memory* is Netty's count (`sluice_server_netty_direct_memory_bytes`: ")
        .append("push pool, network pool, read slices) plus the JDK's direct buffers ")
        .append("(`jvm_buffer_pool_used_bytes{pool=\"direct\"}`) in one sample, against ")
        .append("`-XX:MaxDirectMemorySize`; *heap* is `jvm_memory_bytes_used{area=\"heap\"}` ")
        .append("(garbage included) against `jvm_memory_bytes_max`, the `-Xmx`.\n\n");
    if (results.connections != null) {
      connections(md, results.connections);
    }
    if (results.commits != null) {
      commits(md, results.commits);
    }
    if (results.unregister != null) {
      unregister(md, results.unregister);
    }
    List<String> failures = failures();
    md.append("### Outcome\n\n");
    if (failures.isEmpty()) {
      md.append("Every bound checked held, and every block and count read back intact.\n");
    } else {
      failures.forEach(f -> md.append("- **Failed**: ").append(f).append(".\n"));
    }
    return md.toString();
  }

  private void connections(StringBuilder md, ScaleResults.Connections c) {
    ServerBenchResults.ServerSetup s = c.server();
    RunResult.Peaks p = c.memory().peaks();
    long receive = SluiceConf.empty().get(TransportOptions.RECEIVE_MEMORY);
    HostileConnections.Outcome h = c.hostile();
    md.append("### ")
        .append(count(settings.clients()))
        .append(" concurrent clients\n\n")
        .append(c.pushers())
        .append(" well-behaved clients, each a map task on a connection and ")
        .append("a thread of its own, push ")
        .append(settings.pushMib())
        .append(" MiB each as ")
        .append(RandomPayload.MIN_BLOCK_BYTES >> 10)
        .append("-")
        .append(RandomPayload.MAX_BLOCK_BYTES >> 10)
        .append(" KiB blocks to ")
        .append(ScaleBenchmark.PARTITIONS)
        .append(" partitions through `MapOutputPusher` and ")
        .append("commit, all starting at once; meanwhile ")
        .append(settings.pipeliners())
        .append(" clients each write ")
        .append(settings.pipelineFrames())
        .append(" push frames of ")
        .append(settings.pipelineFrameKib())
        .append(" KiB back to back and never read an answer, ")
        .append("and ")
        .append(settings.stallers())
        .append(" send half of a ")
        .append(settings.stallFrameMib())
        .append(" MiB push frame and then nothing (their ")
        .append("blocks belong to map attempts never committed)")
        .append(settings.hostileFirst() ? ", a second before the others start. Then " : ". Then ")
        .append(Math.min(settings.readers(), ScaleBenchmark.PARTITIONS))
        .append(" readers read every partition back through `PartitionReader` and the benchmark ")
        .append("checks every block's bytes. Server configuration: `")
        .append(String.join("`, `", s.conf()))
        .append("` (other keys at their defaults, among ")
        .append("them `transport.receive.memory` ")
        .append(mib(receive))
        .append(" and `transport.frame.timeout` 60 s); server JVM: `")
        .append(ServerBenchReport.jvmOptions(s.commandLine()))
        .append("`.\n\n");
    md.append("| Check | Peak measured | Bound | Held |\n|---|---:|---:|---|\n");
    row(
        md,
        "Connections open (`sluice_server_connections`)",
        count(c.memory().connections()),
        count(settings.maxConnections()) + " (`transport.max.connections`)",
        c.memory().connections() <= settings.maxConnections());
    row(
        md,
        "Server direct memory, Netty + JDK",
        mib(p.directTotal())
            + " ("
            + mib(p.nettyDirect())
            + " + "
            + mib(p.jdkDirect())
            + " at their peaks)",
        mib(s.directMemoryLimit()) + " (`-XX:MaxDirectMemorySize`)",
        c.directHeld());
    row(
        md,
        "Push pool (`sluice_server_push_memory_held_bytes`)",
        mib(p.pushHeld()),
        mib(s.bufferCapacity()) + " (`buffer.capacity`)",
        c.pushPoolHeld());
    row(
        md,
        "Network pool (`sluice_server_network_memory_bytes`)",
        mib(p.network()),
        mib(c.networkAllowance()) + " (`ServerJvmOptions.networkAllowance`)",
        c.networkHeld());
    row(
        md,
        "Receive reservations (`sluice_server_receive_reserved_bytes`)",
        mib(c.memory().receiveReserved()),
        mib(receive) + " (`transport.receive.memory`)",
        c.memory().receiveReserved() <= receive);
    row(
        md,
        "Reads from memory (`sluice_server_read_memory_used_bytes`)",
        mib(p.readUsed()),
        mib(s.readCapacity()) + " (`read.buffer.capacity`)",
        c.readMemoryHeld());
    row(
        md,
        "Heap in use, garbage included",
        mib(p.heap()),
        mib(c.memory().heapMax()) + " (`-Xmx`)",
        c.heapHeld());
    md.append("| Resident set (`process_resident_memory_bytes`) | ")
        .append(mib(p.resident()))
        .append(" | heap + direct + JVM | |\n");
    row(
        md,
        "Blocks acknowledged, then read back intact exactly once",
        count(c.read().blocks())
            + " of "
            + count(c.ackedBlocks())
            + " ("
            + count(c.read().problems())
            + " problems)",
        "",
        c.intact());
    row(md, "Server still running", c.serverAlive() ? "yes" : "no", "", c.serverAlive());
    md.append("\n");
    LatencyStats t = c.pusherTimes();
    md.append(
        String.format(
            Locale.ROOT,
            "The %d clients pushed and committed %s in %.1f s "
                + "(each client from the start to its commit's answer: p50 %.1f s, p99 %.1f s, max "
                + "%.1f s); %s NO_BUFFER answers, each push sent again after a back-off; at most "
                + "%s connections at once waited for receive memory "
                + "(`sluice_server_receive_waiting_connections`). Read back in %.1f s. ",
            c.pushers(),
            mib(c.ackedBytes()),
            c.pushSeconds(),
            t.p50Nanos() / 1e9,
            t.p99Nanos() / 1e9,
            t.maxNanos() / 1e9,
            count(c.noBuffer()),
            count(c.memory().receiveWaiting()),
            c.readSeconds()));
    md.append(
        String.format(
            Locale.ROOT,
            "Hostile clients: %d of %d pipeliners got every frame "
                + "into their socket; the server closed %d of %d stallers",
            h.pipelinersWroteAll(),
            h.pipeliners(),
            h.stallersClosed(),
            h.stallers()));
    if (h.stallersClosed() > 0) {
      md.append(
          String.format(
              Locale.ROOT,
              " %.1f-%.1f s after they stalled",
              h.firstCloseMillis() / 1e3,
              h.lastCloseMillis() / 1e3));
    }
    md.append(
        String.format(
            Locale.ROOT,
            " (the benchmark waits up to %d s for that after the "
                + "read), and then %s of receive memory was reserved with %s connections open",
            ScaleBenchmark.STALL_WAIT_NANOS / 1_000_000_000L,
            mib(c.reservedAfterStallers()),
            count(c.connectionsAfterStallers())));
    md.append(
        String.format(
            Locale.ROOT,
            ". Server CPU %.1f s over the part (%.2f cores); the "
                + "machine's busy cores %.2f of %d.%n%n",
            c.serverCpuSeconds(),
            c.serverCpuSeconds() / (c.pushSeconds() + c.readSeconds()),
            c.machineCores(),
            Runtime.getRuntime().availableProcessors()));
  }

  private void commits(StringBuilder md, ScaleResults.Commits c) {
    ServerBenchResults.ServerSetup s = c.server();
    RunResult.Peaks p = c.memory().peaks();
    md.append("### ")
        .append(count(c.maps()))
        .append(" maps x ")
        .append(count(c.partitions()))
        .append(" partitions: commit bookkeeping\n\n")
        .append("One registered shuffle of ")
        .append(count(c.partitions()))
        .append(" partitions; a client commits ")
        .append(count(c.maps()))
        .append(" map attempts over one connection, ")
        .append(c.commitsInFlight())
        .append(" commits in flight, each naming every partition with a block count of 1-4 ")
        .append("(one pair in 1,000 has 300, as in `CommitScaleTest`). No block is pushed: this ")
        .append("is the bookkeeping alone. The server's heap is read after a full collection ")
        .append("(`jcmd <pid> GC.run`) before the first commit and after the last; then the ")
        .append("counts of ")
        .append(c.countsChecked())
        .append(" partitions are read back with ")
        .append("`GetShuffleResult` for all ")
        .append(count(c.maps()))
        .append(" attempts and compared. Server JVM: `")
        .append(ServerBenchReport.jvmOptions(s.commandLine()))
        .append("`.\n\n");
    md.append("| Measure | Value |\n|---|---:|\n");
    md.append("| (map, partition) pairs committed | ").append(count(c.pairs())).append(" |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| Time to commit them | %.1f s (%,.0f commits/s, " + "%,.0f pairs/s) |%n",
            c.seconds(),
            c.maps() / c.seconds(),
            c.pairs() / c.seconds()));
    md.append("| Live heap after a full GC, before / after | ")
        .append(mib(c.heapBefore()))
        .append(" / ")
        .append(mib(c.heapAfter()))
        .append(" |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| Live heap per (map, partition) pair | %.2f bytes |%n",
            c.heapBytesPerPair()));
    md.append("| Peak heap in use, garbage included (of `-Xmx`) | ")
        .append(mib(p.heap()))
        .append(" (of ")
        .append(mib(c.memory().heapMax()))
        .append(") |\n");
    md.append("| Peak direct memory, Netty + JDK (of `-XX:MaxDirectMemorySize`) | ")
        .append(mib(p.directTotal()))
        .append(" (of ")
        .append(mib(s.directMemoryLimit()))
        .append(") |\n");
    md.append("| Peak network pool | ").append(mib(p.network())).append(" |\n");
    md.append("| Peak resident set | ").append(mib(p.resident())).append(" |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| Server CPU while committing | %.1f s (%.2f cores) |%n",
            c.serverCpuSeconds(),
            c.serverCpuSeconds() / c.seconds()));
    md.append("| Counts read back | ")
        .append(
            c.countsProblem() == null
                ? "all equal to the committed"
                : "**wrong**: " + c.countsProblem())
        .append(" |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| Unregistering the application afterwards | %.0f ms " + "|%n%n",
            c.unregisterMillis()));
  }

  private void unregister(StringBuilder md, ScaleResults.Unregister u) {
    md.append("### Commit and fetch latency while a large application is unregistered\n\n")
        .append("A large application's shuffle of ")
        .append(count(u.partitions()))
        .append(" partitions gets one 64 KiB block per partition, each flushed to disk on its ")
        .append("own (`buffer.partition.flush.threshold 65536` on this server): ")
        .append(count(u.files()))
        .append(" files of ")
        .append(mib(u.bytesOnDisk()))
        .append(". A small application meanwhile runs two loops, each on a connection of its ")
        .append("own: one commits a map attempt of one partition and waits for the answer, again ")
        .append("and again; the other reads a partition of ")
        .append(8)
        .append(" blocks (`GetShuffleResult`, index, data, checked block by block) through a new ")
        .append("`PartitionReader` each time. After a second of warm-up, latencies are taken for ")
        .append(settings.latencySeconds())
        .append(" s (*before*); then the large application ")
        .append("is unregistered and latencies are taken from the request until its files are ")
        .append("gone from the disk, the server's trash directory empty (*during*). ")
        .append(
            String.format(
                Locale.ROOT,
                "The unregister was answered in %.1f ms; the files "
                    + "were gone %.0f ms after it was sent. ",
                u.answerMillis(),
                u.deletionMillis()))
        .append("Server JVM: `")
        .append(ServerBenchReport.jvmOptions(u.server().commandLine()))
        .append("`.\n\n");
    md.append(
        "| Operation | Window | Count | p50 (µs) | p99 (µs) | max (µs) | Per second | p99 "
            + "during / before |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    latencyRows(md, "Commit", u.commitsBefore(), u.commitsDuring());
    latencyRows(md, "Fetch of a partition", u.fetchesBefore(), u.fetchesDuring());
    md.append("\n");
    if (u.fetchesDuring() == null
        || u.fetchesDuring().count() < 100
        || u.commitsDuring() == null
        || u.commitsDuring().count() < 100) {
      md.append("Fewer than 100 operations fell in the *during* window, so its p99 is about its ")
          .append("maximum. ");
    }
    md.append("Peak server heap in the part: ")
        .append(mib(u.memory().peaks().heap()))
        .append(" of ")
        .append(mib(u.memory().heapMax()))
        .append("; peak direct memory ")
        .append(mib(u.memory().peaks().directTotal()))
        .append(" of ")
        .append(mib(u.server().directMemoryLimit()))
        .append(".\n\n");
  }

  private static void latencyRows(
      StringBuilder md, String what, LatencyStats before, LatencyStats during) {
    md.append(latencyRow(what, "before", before, "")).append("\n");
    String ratio =
        before == null || during == null
            ? "n/a"
            : String.format(Locale.ROOT, "%.2fx", during.p99Nanos() / (double) before.p99Nanos());
    md.append(latencyRow(what, "during", during, ratio)).append("\n");
  }

  private static String latencyRow(String what, String window, LatencyStats s, String ratio) {
    if (s == null) {
      return "| " + what + " | " + window + " | 0 | | | | | " + ratio + " |";
    }
    return s.row(what + " | " + window) + " " + ratio + " |";
  }

  private static void row(
      StringBuilder md, String check, String measured, String bound, boolean held) {
    md.append("| ")
        .append(check)
        .append(" | ")
        .append(measured)
        .append(" | ")
        .append(bound)
        .append(" | ")
        .append(held ? "**yes**" : "**no**")
        .append(" |\n");
  }
}
