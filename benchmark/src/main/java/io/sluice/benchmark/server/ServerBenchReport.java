package io.sluice.benchmark.server;

import static io.sluice.benchmark.Format.count;
import static io.sluice.benchmark.Format.mib;
import static io.sluice.benchmark.Format.percent;
import static io.sluice.benchmark.Format.percent2;
import static io.sluice.benchmark.Format.rate;

import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.MetricsPoller;
import io.sluice.benchmark.Series;
import io.sluice.server.ServerOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Renders the results as the {@code server} section of {@code docs/benchmarks/server.md}, with
 * targets.
 */
final class ServerBenchReport {
  static final double INGEST_TARGET_RATIO = 0.70;
  static final double GC_TARGET_SHARE = 0.01;

  private final ServerBenchSettings settings;
  private final ServerBenchResults results;

  ServerBenchReport(ServerBenchSettings settings, ServerBenchResults results) {
    this.settings = settings;
    this.results = results;
  }

  /** The contract's checks all held: peaks within budget, nothing lost, the server alive. */
  static boolean contractHeld(ServerBenchResults results) {
    RunResult c = results.contract;
    ServerBenchResults.ServerSetup s = results.contractServer;
    return c.peaks().pushHeld() <= s.bufferCapacity()
        && c.peaks().directTotal() <= s.directMemoryLimit()
        && c.intact()
        && results.contractServerAlive;
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    setup(md);
    if (!results.runs.isEmpty()) {
      limits(md);
      rates(md);
      resources(md);
    }
    if (results.contract != null) {
      contract(md);
    }
    targets(md);
    if (!results.runs.isEmpty()) {
      whereTimeGoes(md);
    }
    return md.toString();
  }

  private void setup(StringBuilder md) {
    md.append("A real server, started with `bin/start-server.sh` in a JVM of its own (its heap, ")
        .append("direct memory limit and GC flags are the script's, from `ServerJvmOptions`), ")
        .append("standing alone on 127.0.0.1 with one local directory on the repository's disk. ")
        .append("Clients run in the benchmark JVM (`")
        .append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        .append("`), each a map task with a connection and a thread of its own that pushes ")
        .append("and reads through the production client of `io.sluice.client.core`. It ")
        .append("pushes its share as ")
        .append(RandomPayload.MIN_BLOCK_BYTES >> 10)
        .append("-")
        .append(RandomPayload.MAX_BLOCK_BYTES >> 10)
        .append(" KiB blocks of random bytes to ")
        .append(ShuffleRun.PARTITIONS)
        .append(" partitions through `MapOutputPusher` (pushes of ")
        .append(mib(ShuffleRun.PUSH.batchSize()))
        .append(", at most ")
        .append(mib(ShuffleRun.PUSH.maxBytesBuffered()))
        .append(" held; a push refused with NO_BUFFER is sent again after a back-off of ")
        .append(ShuffleRun.PUSH.backoff().firstWait().toMillis())
        .append("-")
        .append(ShuffleRun.PUSH.backoff().maxWait().toMillis())
        .append(" ms), then commits its block counts. Once the server has flushed what it ")
        .append("flushes, as many readers as there were clients read every partition back ")
        .append("through `PartitionReader` (requests up to ")
        .append(mib(ShuffleRun.FETCH_REQUEST))
        .append(", ")
        .append(mib(ShuffleRun.FETCH_IN_FLIGHT))
        .append(" in flight), which checks each ")
        .append("block's CRC32C and every committed count; the benchmark checks besides that ")
        .append("each block holds the bytes pushed under its identity, once. The server's ")
        .append("memory gauges, flushes and refusals (`/metrics`) are sampled every ")
        .append(settings.sampleMillis())
        .append(" ms for peaks, and a peak between two samples is not seen; its CPU and its ")
        .append("other counters are read at the start and the end of each phase, so that the ")
        .append("sampling does not add to the CPU it measures.\n\n");
    if (results.throughputServer != null) {
      ServerBenchResults.ServerSetup s = results.throughputServer;
      md.append("Throughput runs: ")
          .append(settings.runMib())
          .append(" MiB pushed per run, ")
          .append(settings.rounds())
          .append(settings.rounds() == 1 ? " round" : " rounds")
          .append(" of client counts ")
          .append(join(settings.clients()))
          .append(", each round after its own iperf3 and dd measurements; one server for all of ")
          .append("them, warmed up first with a run of ")
          .append(settings.warmupMib())
          .append(" MiB at each client count; each run's shuffle is deleted after it. Medians ")
          .append("over the rounds, ")
          .append("ranges in brackets. Server configuration: `")
          .append(String.join("`, `", s.conf()))
          .append("` (other keys at their defaults); ")
          .append("server JVM: `")
          .append(jvmOptions(s.commandLine()))
          .append("`.");
      if (s.recording() != null) {
        md.append(" The server ran with a flight recorder (`settings=profile`), kept at `")
            .append(relative(s.recording()))
            .append("`.");
      }
      md.append("\n\n");
    }
  }

  private void limits(StringBuilder md) {
    md.append(
        "| Machine limit, same invocation | Median | Range | CPU-s per GiB |\n"
            + "|---|---:|---:|---:|\n");
    if (!results.loopbackBytesPerSecond.isEmpty()) {
      md.append("| Loopback TCP, `iperf3 -c 127.0.0.1 -t ")
          .append(settings.iperfSeconds())
          .append(" -O 1`, one stream (")
          .append(results.iperfVersion)
          .append(") | ")
          .append(rate(results.loopbackBytesPerSecond.median()))
          .append(" | ")
          .append(range(results.loopbackBytesPerSecond))
          .append(" | ")
          .append(cores(results.loopbackReceiveCpuPerGib.median()))
          .append(" receiving |\n");
    }
    for (Map.Entry<Integer, Series> e : results.pooledReceiveCpuPerGib.entrySet()) {
      Series rates = results.pooledReceiveBytesPerSecond.get(e.getKey());
      md.append("| Loopback TCP received as a server receives: ")
          .append(e.getKey())
          .append(e.getKey() == 1 ? " connection" : " connections")
          .append(" into a ")
          .append(ReceiveCopyProbe.REGION_BYTES >> 20)
          .append(" MiB region, one thread (`ReceiveCopyProbe`) | ")
          .append(rate(rates.median()))
          .append(" | ")
          .append(range(rates))
          .append(" | ")
          .append(cores(e.getValue().median()))
          .append(" receiving |\n");
    }
    md.append("| Disk sequential write, `")
        .append(results.ddCommand)
        .append("` | ")
        .append(rate(results.diskBytesPerSecond.median()))
        .append(" | ")
        .append(range(results.diskBytesPerSecond))
        .append(" | ")
        .append(cores(results.diskCpuPerGib.median()))
        .append(" |\n");
    md.append("| Page cache write (no sync; for reference, not a target), `")
        .append(results.ddPageCacheCommand)
        .append("` | ")
        .append(rate(results.pageCacheBytesPerSecond.median()))
        .append(" | ")
        .append(range(results.pageCacheBytesPerSecond))
        .append(" | ")
        .append(cores(results.pageCacheCpuPerGib.median()))
        .append(" |\n");
    for (Map.Entry<Integer, Series> e : results.sendfileCpuPerGib.entrySet()) {
      Series rates = results.sendfileBytesPerSecond.get(e.getKey());
      md.append(
              "| Loopback TCP sent as a server sends what it flushed: a file written past the "
                  + "page cache, sent with sendfile in ")
          .append(SendfileProbe.SEND_BYTES >> 20)
          .append(" MiB pieces over ")
          .append(e.getKey())
          .append(e.getKey() == 1 ? " connection" : " connections")
          .append(", a thread each (`SendfileProbe`) | ")
          .append(rate(rates.median()))
          .append(" | ")
          .append(range(rates))
          .append(" | ")
          .append(cores(e.getValue().median()))
          .append(" sending |\n");
    }
    md.append(
        "\n*CPU-s per GiB*: for iperf3, what its receiving process spent (its "
            + "`remote_total`); for dd, what it spent (user and system time): past the page cache "
            + "the copy into its buffer and the device's I/O, into the page cache the kernel's copy "
            + "into new page-cache pages.");
    if (!settings.probes()) {
      md.append(
          " The CPU floors of receiving as a server receives and of sendfile were not measured "
              + "(`--probes`).\n\n");
      return;
    }
    md.append(
        " *Sent as a server sends*: the sending threads' CPU, the "
            + "kernel bringing the pages from the device into the page cache, handing them to the "
            + "sockets and, on loopback, part of their delivery to the receiving sockets, the more "
            + "the faster they go (the file is written with `oflag=direct` first, unmeasured). "
            + "*Received as a server receives*: in this benchmark's JVM, "
            + "sender threads write 1 MiB at a time and one thread reads, through a selector, up to "
            + "256 KiB at a time into the next 256 KiB of a region far larger than the processor's "
            + "caches, as a server's event loop reads pushes into its pool, and does nothing else "
            + "with the bytes: what that thread spent. Unlike iperf3's one reused buffer, neither "
            + "end of the kernel's copy is in the cache, the more so the more connections hold bytes "
            + "in their socket buffers.\n\n");
  }

  private void rates(StringBuilder md) {
    md.append(
        "| Clients | Acknowledged | Ingest with flush | / min(loopback, disk) | Flushed "
            + "/ pushed | Read back | Read from memory | Pushes held back unread | NO_BUFFER answers | "
            + "Pool filled with blocks while refusing |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      Series flushed = series(runs, RunResult::flushedBytesPerSecond);
      md.append("| ")
          .append(e.getKey())
          .append(" | ")
          .append(rateWithRange(series(runs, RunResult::ackBytesPerSecond)))
          .append(" | ")
          .append(rateWithRange(flushed))
          .append(" | ")
          .append(percent(flushed.median() / limit()))
          .append(" | ")
          .append(percent(median(runs, r -> r.flushedBytes() / (double) r.ackedBytes())))
          .append(" | ")
          .append(rateWithRange(series(runs, RunResult::readBytesPerSecond)))
          .append(" | ")
          .append(
              percent(
                  median(
                      runs,
                      r ->
                          r.readMemoryBytes()
                              / (double) (r.readMemoryBytes() + r.readDiskBytes()))))
          .append(" | ")
          .append(count(median(runs, RunResult::pushWaits)))
          .append(" | ")
          .append(count(median(runs, RunResult::noBufferRefusals)))
          .append(" | ")
          .append(fill(runs))
          .append(" |\n");
    }
    md.append("\n*Acknowledged*: bytes acknowledged / time from the first push to the last ")
        .append("acknowledgement. *Ingest with flush*: bytes the server wrote to its files / time ")
        .append("from the first push until its last flush ended; what it did not flush stayed in ")
        .append("memory by design (below the flush watermarks, under the per-partition ")
        .append("threshold) and was read from there. *Read back*: verified bytes / time from the ")
        .append("first to the last read; reads of files just written are served from the page ")
        .append(
            flushesAroundCache()
                ? "cache unless they were written around it, as this server's flushes are "
                    + "(`flush.direct all`). The ratio compares the server's writes with the device's "
                    + "rate. "
                : "cache, not the disk. The server writes without fsync, so its flushes also end in "
                    + "the page cache, which the kernel writes back on its own, while dd's "
                    + "`oflag=direct` goes to the device: the ratio compares the server's handing of "
                    + "data to the kernel with the device's rate. ")
        .append("*Pushes held back unread*: the median of the server's ")
        .append("`sluice_server_push_waits_total` over the ingest: pushes whose connection it ")
        .append("stopped reading until flushes made room in the pool (`buffer.push.wait`), ")
        .append("received once instead of refused and sent again. ")
        .append("*NO_BUFFER answers*: the median of the server's ")
        .append("`sluice_server_push_rejections_total{reason=\"NO_BUFFER\"}` over the ingest; ")
        .append("each refused push was sent again after a back-off (the Spark client's default ")
        .append("back-off is longer: 50 ms doubling to 2 s, 20 retries). *Pool filled with ")
        .append("blocks while refusing*: in the samples after which the server had refused more ")
        .append("pushes, the median of the blocks' bytes (`sluice_server_push_memory_allocated_")
        .append("bytes`) over what the pool held from the system, chunk by chunk ")
        .append("(`sluice_server_push_memory_held_bytes`), with the share of samples that saw ")
        .append("refusals; the rest was free space inside chunks that still held other ")
        .append("blocks.\n\n");
  }

  private static String fill(List<RunResult> runs) {
    Series fill = new Series();
    long refusing = 0;
    long samples = 0;
    for (RunResult r : runs) {
      refusing += r.refusals().refusing();
      samples += r.refusals().samples();
      if (!Double.isNaN(r.refusals().medianFill())) {
        fill.add(r.refusals().medianFill());
      }
    }
    if (fill.isEmpty()) {
      return "never refused";
    }
    return percent(fill.median())
        + " ("
        + percent(refusing / (double) Math.max(1, samples))
        + " of samples)";
  }

  private void resources(StringBuilder md) {
    ServerBenchResults.ServerSetup s = results.throughputServer;
    md.append("| Clients | Peak push pool (of ")
        .append(mib(s.bufferCapacity()))
        .append(") | Peak network pool | Peak direct, all (of ")
        .append(mib(s.directMemoryLimit()))
        .append(
            ") | Peak RSS | Server GC, share of wall time (collections) | Server CPU, "
                + "ingest / read | Server CPU seconds per GiB, ingest / read | Client JVM CPU, "
                + "ingest / read | Machine CPU, ingest / read |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      md.append("| ")
          .append(e.getKey())
          .append(" | ")
          .append(mib(max(runs, r -> r.peaks().pushHeld())))
          .append(" | ")
          .append(mib(max(runs, r -> r.peaks().network())))
          .append(" | ")
          .append(mib(max(runs, r -> r.peaks().directTotal())))
          .append(" | ")
          .append(mib(max(runs, r -> r.peaks().resident())))
          .append(" | ")
          .append(percent2(median(runs, RunResult::gcShare)))
          .append(" (max ")
          .append(percent2(max(runs, RunResult::gcShare)))
          .append("; ")
          .append(count(median(runs, RunResult::gcCount)))
          .append(")")
          .append(" | ")
          .append(cores(median(runs, RunResult::serverCoresIngest)))
          .append(" / ")
          .append(cores(median(runs, RunResult::serverCoresRead)))
          .append(" | ")
          .append(cores(median(runs, r -> r.serverCpuIngest() / gib(r.ackedBytes()))))
          .append(" / ")
          .append(cores(median(runs, r -> r.serverCpuRead() / gib(r.read().bytes()))))
          .append(" | ")
          .append(cores(median(runs, RunResult::benchmarkCoresIngest)))
          .append(" / ")
          .append(cores(median(runs, RunResult::benchmarkCoresRead)))
          .append(" | ")
          .append(cores(median(runs, RunResult::machineCoresIngest)))
          .append(" / ")
          .append(cores(median(runs, RunResult::machineCoresRead)))
          .append(" |\n");
    }
    md.append("\nPeaks are the highest over the rounds; the rest are medians. *Peak direct, all*: ")
        .append("Netty's direct memory in the server (push pool, network pool, read slices) plus ")
        .append("the JDK's own direct buffers, in one sample. CPU in cores (")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" on this machine): the ")
        .append("server's from its `process_cpu_seconds_total`, the clients' from this JVM, the ")
        .append("machine's from `/proc/stat` (everything running, the two JVMs and any other ")
        .append("load).\n\n");
  }

  private void contract(StringBuilder md) {
    RunResult c = results.contract;
    ServerBenchResults.ServerSetup s = results.contractServer;
    double oversubscription = c.ackedBytes() / (double) s.bufferCapacity();
    md.append("### Memory contract under oversubscription\n\n")
        .append(c.clients())
        .append(" clients push ")
        .append(mib(c.ackedBytes()))
        .append(" in total, as fast as they can, into a server whose `buffer.capacity` is ")
        .append(mib(s.bufferCapacity()))
        .append(String.format(Locale.ROOT, " (%.0fx)", oversubscription))
        .append(" and `read.buffer.capacity` ")
        .append(mib(s.readCapacity()))
        .append("; its `-XX:MaxDirectMemorySize` is their sum plus the network allowance ")
        .append("(`ServerJvmOptions.networkAllowance`), ")
        .append(mib(s.directMemoryLimit()))
        .append(". Then ")
        .append(c.clients())
        .append(" readers read it all back. ")
        .append(c.peaks().samples())
        .append(" samples of `/metrics`, every ")
        .append(c.sampleMillis())
        .append(" ms; the push pool's gauge is refreshed by the ")
        .append("server's flush planner, every 50 ms.\n\n");
    md.append("| Check | Measured | Limit | Held |\n|---|---:|---:|---|\n");
    md.append("| Peak push pool, chunks held (`sluice_server_push_memory_held_bytes`) | ")
        .append(mib(c.peaks().pushHeld()))
        .append(" | ")
        .append(mib(s.bufferCapacity()))
        .append(" | ")
        .append(yes(c.peaks().pushHeld() <= s.bufferCapacity()))
        .append(" |\n");
    md.append("| Peak server direct memory, Netty (`sluice_server_netty_direct_memory_bytes`) + ")
        .append("JDK direct buffers | ")
        .append(mib(c.peaks().directTotal()))
        .append(" (")
        .append(mib(c.peaks().nettyDirect()))
        .append(" + ")
        .append(mib(c.peaks().jdkDirect()))
        .append(" at their peaks) | ")
        .append(mib(s.directMemoryLimit()))
        .append(" | ")
        .append(yes(c.peaks().directTotal() <= s.directMemoryLimit()))
        .append(" |\n");
    md.append("| Peak network pool (`sluice_server_network_memory_bytes`) | ")
        .append(mib(c.peaks().network()))
        .append(" | ")
        .append(mib(s.directMemoryLimit() - s.bufferCapacity() - s.readCapacity()))
        .append(" (the network allowance) | ")
        .append(
            yes(
                c.peaks().network()
                    <= s.directMemoryLimit() - s.bufferCapacity() - s.readCapacity()))
        .append(" |\n");
    md.append("| Blocks acknowledged, then read back intact exactly once | ")
        .append(count(c.read().blocks()))
        .append(" of ")
        .append(count(c.ackedBlocks()))
        .append(" (")
        .append(count(c.read().problems()))
        .append(" problems) | | ")
        .append(yes(c.intact()))
        .append(" |\n");
    md.append("| Server's accepted bytes = acknowledged bytes | ")
        .append(count(c.serverPushedBytes()))
        .append(" = ")
        .append(count(c.ackedBytes()))
        .append(" | | ")
        .append(yes(c.serverPushedBytes() == c.ackedBytes()))
        .append(" |\n");
    md.append("| Server still running after the run | ")
        .append(results.contractServerAlive ? "yes" : "no")
        .append(" | | ")
        .append(yes(results.contractServerAlive))
        .append(" |\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Back-pressure: %s pushes held back unread until the "
                + "pool had room, %s NO_BUFFER answers; while refusing, "
                + "blocks filled a median %s of what the pool held. "
                + "Acknowledged at %s, ingest with flush %s, read back at %s; server GC %s of the "
                + "wall time.",
            count(c.pushWaits()),
            count(c.noBufferRefusals()),
            Double.isNaN(c.refusals().medianFill()) ? "n/a" : percent(c.refusals().medianFill()),
            rate(c.ackBytesPerSecond()),
            rate(c.flushedBytesPerSecond()),
            rate(c.readBytesPerSecond()),
            percent2(c.gcShare())));
    if (!c.read().firstProblems().isEmpty()) {
      md.append(" First problems: ")
          .append(String.join("; ", c.read().firstProblems()))
          .append('.');
    }
    md.append("\n\n");
  }

  private void targets(StringBuilder md) {
    md.append("### Targets\n\n");
    if (!results.runs.isEmpty()) {
      md.append("- Ingest with flush at least ")
          .append(percent(INGEST_TARGET_RATIO))
          .append(" of min(loopback, disk) = ")
          .append(rate(limit()))
          .append(limitSource())
          .append(":\n");
      for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
        double flushed = median(e.getValue(), RunResult::flushedBytesPerSecond);
        double ratio = flushed / limit();
        md.append("  - ").append(e.getKey()).append(e.getKey() == 1 ? " client: " : " clients: ");
        if (ratio >= INGEST_TARGET_RATIO) {
          md.append("**met**, ")
              .append(percent(ratio))
              .append(" (")
              .append(rate(flushed))
              .append(").\n");
        } else {
          md.append("**missed**, ")
              .append(percent(ratio))
              .append(" (")
              .append(rate(flushed))
              .append("): ")
              .append(String.format(Locale.ROOT, "%.0f", (INGEST_TARGET_RATIO - ratio) * 100))
              .append(" points short, ")
              .append(rate(INGEST_TARGET_RATIO * limit() - flushed))
              .append(" more needed.\n");
        }
      }
      md.append("- Server GC time below ")
          .append(percent(GC_TARGET_SHARE))
          .append(" of wall time (worst run of each client count):\n");
      for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
        double worst = max(e.getValue(), RunResult::gcShare);
        md.append("  - ")
            .append(e.getKey())
            .append(e.getKey() == 1 ? " client: " : " clients: ")
            .append(worst < GC_TARGET_SHARE ? "**met**, " : "**missed**, ")
            .append(percent2(worst))
            .append(".\n");
      }
      boolean intact =
          results.runs.values().stream().flatMap(List::stream).allMatch(RunResult::intact);
      md.append("- Every acknowledged block of every throughput run read back intact: ")
          .append(intact ? "**yes**" : "**no**")
          .append(".\n");
    }
    if (results.contract != null) {
      ServerBenchResults.ServerSetup s = results.contractServer;
      md.append("- Memory contract (")
          .append(mib(results.contract.ackedBytes()))
          .append(" into ")
          .append(mib(s.bufferCapacity()))
          .append(", ")
          .append(results.contract.clients())
          .append(" clients): ")
          .append(contractHeld(results) ? "**held**" : "**broken**")
          .append(": peak direct memory ")
          .append(mib(results.contract.peaks().directTotal()))
          .append(" of ")
          .append(mib(s.directMemoryLimit()))
          .append(", every block intact: ")
          .append(results.contract.intact() ? "yes" : "no")
          .append(".\n");
    }
    md.append('\n');
  }

  private void whereTimeGoes(StringBuilder md) {
    md.append("### Where the time goes\n\n");
    RunResult largest =
        results.runs.get(results.profiledClients) == null
            ? null
            : results.runs.get(results.profiledClients).get(0);
    if (largest != null) {
      List<RunResult> runs = results.runs.get(results.profiledClients);
      double server = median(runs, RunResult::serverCoresIngest);
      double client = median(runs, RunResult::benchmarkCoresIngest);
      double machine = median(runs, RunResult::machineCoresIngest);
      md.append(
          String.format(
              Locale.ROOT,
              "During ingest with %d clients the machine's %d cores "
                  + "were %.0f%% busy: the server used %.2f cores, the clients (generating blocks, "
                  + "CRC32C, the client transport) %.2f, anything else %.2f. The server spent %.2f "
                  + "CPU seconds per GiB taken and flushed, and answered %s NO_BUFFER. Its flushes are "
                  + "writes %s, which ran at %s (%s MiB/s) for dd in the same rounds.\n\n",
              results.profiledClients,
              Runtime.getRuntime().availableProcessors(),
              100 * machine / Runtime.getRuntime().availableProcessors(),
              server,
              client,
              Math.max(0, machine - server - client),
              median(runs, r -> r.serverCpuIngest() / gib(r.ackedBytes())),
              count(median(runs, RunResult::noBufferRefusals)),
              flushesAroundCache()
                  ? "around the page cache (`flush.direct all`)"
                  : "into the page cache (no fsync)",
              rate(
                  flushesAroundCache()
                      ? results.diskBytesPerSecond.median()
                      : results.pageCacheBytesPerSecond.median()),
              range(
                  flushesAroundCache()
                      ? results.diskBytesPerSecond
                      : results.pageCacheBytesPerSecond)));
    }
    cpuBudget(md);
    readCpu(md);
    if (results.ingestProfile == null) {
      md.append("No flight recording was taken (`--no-profile`).\n");
      return;
    }
    md.append("The server's flight recording (`settings=profile`) in the ingest and the read ")
        .append("phases of the ")
        .append(results.profiledClients)
        .append("-client runs. Threads ")
        .append("running Java code are sampled every 10 ms (`jdk.ExecutionSample`): by thread, ")
        .append("by the method on top of the stack, and by the innermost Sluice method on the ")
        .append("stack. Threads in native code, mostly system calls, are sampled every 20 ms ")
        .append("(`jdk.NativeMethodSample`; waits for events left out). GC threads are not ")
        .append("sampled. JFR takes a few Java threads and one native thread per period, so ")
        .append("shares compare within a table, not between the Java and the native ones.\n\n");
    profile(md, "Ingest", results.ingestProfile);
    profile(md, "Read", results.readProfile);
  }

  private static void profile(StringBuilder md, String phase, JfrProfile.Summary p) {
    md.append("| ")
        .append(phase)
        .append(
            String.format(
                Locale.ROOT,
                ", %,d Java samples: thread | Share | Top frame | Share | Innermost Sluice frame "
                    + "| Share |%n",
                p.samples()))
        .append("|---|---:|---|---:|---|---:|\n");
    int rows =
        Math.max(p.threads().size(), Math.max(p.topFrames().size(), p.sluiceFrames().size()));
    for (int i = 0; i < rows; i++) {
      md.append("| ")
          .append(cell(p.threads(), i, p.samples()))
          .append(" | ")
          .append(cell(p.topFrames(), i, p.samples()))
          .append(" | ")
          .append(cell(p.sluiceFrames(), i, p.samples()))
          .append(" |\n");
    }
    md.append("\n| ")
        .append(phase)
        .append(
            String.format(
                Locale.ROOT,
                ", %,d native samples: thread and native method | Share |%n",
                p.nativeSamples()))
        .append("|---|---:|\n");
    for (int i = 0; i < p.nativeCalls().size(); i++) {
      md.append("| ").append(cell(p.nativeCalls(), i, p.nativeSamples())).append(" |\n");
    }
    md.append("\n");
  }

  /**
   * Where each GiB's CPU went during ingest, against the machine's two copies that no server can
   * avoid (the sockets' receive into a pool, measured by {@link ReceiveCopyProbe}, and the write to
   * disk, by dd, in the same rounds), and the ingest rate the machine's cores allow at those costs.
   */
  private void cpuBudget(StringBuilder md) {
    if (results.loopbackBytesPerSecond.isEmpty()
        || !results.pooledReceiveCpuPerGib.keySet().containsAll(results.runs.keySet())) {
      threadCpu(md);
      return;
    }
    int cpus = Runtime.getRuntime().availableProcessors();
    double write =
        flushesAroundCache() ? results.diskCpuPerGib.median() : results.pageCacheCpuPerGib.median();
    md.append(
        "What each GiB ingested cost, in CPU seconds, against the two copies this server "
            + "makes of it: receiving from the sockets (`ReceiveCopyProbe` above, with as many "
            + "connections as clients: ");
    List<String> receives = new ArrayList<>();
    for (Map.Entry<Integer, Series> e : results.pooledReceiveCpuPerGib.entrySet()) {
      receives.add(cores(e.getValue().median()) + " with " + e.getKey());
    }
    md.append(String.join(", ", receives))
        .append("; iperf3's receiving end, whose buffer stays in ")
        .append("the processor's cache, ")
        .append(cores(results.loopbackReceiveCpuPerGib.median()))
        .append(") and writing it ")
        .append(
            flushesAroundCache()
                ? "around the page cache (`flush.direct all`; dd " + "`oflag=direct`, "
                : "into the page cache (dd, ")
        .append(cores(write))
        .append("), all measured in the same rounds. The clients share the " + "machine's ")
        .append(cpus)
        .append(" cores with the server, so ingest cannot pass ")
        .append(cpus)
        .append(" cores / (server + clients) per GiB.\n\n");
    md.append(
        "| Clients | Server | of which the two copies | Server, the rest | Clients | Ingest "
            + "the cores allow at these costs | With only the two copies on the server | Measured "
            + "ingest |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      double server = median(runs, r -> r.serverCpuIngest() / gib(r.ackedBytes()));
      double clients =
          median(runs, r -> r.benchmarkCoresIngest() * r.ingestEndSeconds() / gib(r.ackedBytes()));
      double copies = results.pooledReceiveCpuPerGib.get(e.getKey()).median() + write;
      double allowed = cpus / (server + clients) * (1L << 30);
      double lean = cpus / (copies + clients) * (1L << 30);
      md.append("| ")
          .append(e.getKey())
          .append(" | ")
          .append(cores(server))
          .append(" | ")
          .append(cores(copies))
          .append(" | ")
          .append(cores(server - copies))
          .append(" | ")
          .append(cores(clients))
          .append(" | ")
          .append(rate(allowed))
          .append(" (")
          .append(percent(allowed / limit()))
          .append(") | ")
          .append(rate(lean))
          .append(" (")
          .append(percent(lean / limit()))
          .append(") | ")
          .append(rate(median(runs, RunResult::flushedBytesPerSecond)))
          .append(" (")
          .append(percent(median(runs, RunResult::flushedBytesPerSecond) / limit()))
          .append(") |\n");
    }
    md.append(
        "\nPercentages are of min(loopback, disk). *With only the two copies on the "
            + "server*: the rate the cores would allow if the server spent nothing beyond the two "
            + "copies, the clients' cost unchanged.\n\n");
    threadCpu(md);
  }

  /** Whether the throughput server writes its flushes around the page cache (flush.direct all). */
  private boolean flushesAroundCache() {
    String key = ServerOptions.FLUSH_DIRECT.key() + " ";
    String direct = ServerOptions.FLUSH_DIRECT.defaultValueText();
    for (String line : results.throughputServer.conf()) {
      if (line.startsWith(key)) {
        direct = line.substring(key.length()).trim();
      }
    }
    return direct.equals("all");
  }

  /** The server's ingest CPU per GiB by its threads ({@code sluice_server_cpu_seconds_total}). */
  private void threadCpu(StringBuilder md) {
    md.append(
            "The server's CPU seconds per GiB ingested by its threads "
                + "(`sluice_server_cpu_seconds_total`, docs/metrics.md), medians: *network* holds the "
                + "socket's receive and the copy into the push pool, *flush* the writes to disk, "
                + "*http* the HTTP port answering this benchmark's own sampling of `/metrics` (every ")
        .append(settings.sampleMillis())
        .append(" ms; a Prometheus scraping every 15 s asks ")
        .append(String.format(Locale.ROOT, "%,d", 15_000 / Math.max(1, settings.sampleMillis())))
        .append(" times less often).\n\n| Clients |");
    threadColumns(md, 1);
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      md.append("| ").append(e.getKey()).append(" |");
      threadCells(md, e.getValue(), RunResult::serverThreadCpuIngest, RunResult::ackedBytes);
    }
    md.append('\n');
  }

  /**
   * The server's CPU per GiB read back by its threads, beside {@link SendfileProbe}'s: the server
   * sends what it flushed around the page cache with sendfile, which the probe does and nothing
   * else.
   */
  private void readCpu(StringBuilder md) {
    if (!results.sendfileCpuPerGib.keySet().containsAll(results.runs.keySet())) {
      md.append(
          "What each GiB read back cost the server, by its threads (*network* holds the file "
              + "reads and the sends).\n\n| Clients | Server |");
      threadColumns(md, 2);
      for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
        List<RunResult> runs = e.getValue();
        md.append("| ")
            .append(e.getKey())
            .append(" | ")
            .append(cores(median(runs, r -> r.serverCpuRead() / gib(r.read().bytes()))))
            .append(" |");
        threadCells(md, runs, RunResult::serverThreadCpuRead, r -> r.read().bytes());
      }
      md.append('\n');
      return;
    }
    md.append(
        "What each GiB read back cost the server, by its threads (*network* holds the file "
            + "reads and the sends), beside what sending a file written past the page cache with "
            + "sendfile over as many connections cost threads that did nothing else "
            + "(`SendfileProbe` above, same rounds). The server sends its flushed data that way; "
            + "the rest is answering the requests and its other threads.\n\n"
            + "| Clients | Server | sendfile alone | Server, the rest |");
    threadColumns(md, 4);
    for (Map.Entry<Integer, List<RunResult>> e : results.runs.entrySet()) {
      List<RunResult> runs = e.getValue();
      double server = median(runs, r -> r.serverCpuRead() / gib(r.read().bytes()));
      double sendfile = results.sendfileCpuPerGib.get(e.getKey()).median();
      md.append("| ")
          .append(e.getKey())
          .append(" | ")
          .append(cores(server))
          .append(" | ")
          .append(cores(sendfile))
          .append(" | ")
          .append(cores(server - sendfile))
          .append(" |");
      threadCells(md, runs, RunResult::serverThreadCpuRead, r -> r.read().bytes());
    }
    md.append('\n');
  }

  /** The thread groups' headers after {@code leading} columns already named, and the rule. */
  private static void threadColumns(StringBuilder md, int leading) {
    MetricsPoller.THREAD_GROUPS.forEach(g -> md.append(' ').append(g).append(" |"));
    md.append("\n|")
        .append("---:|".repeat(leading + MetricsPoller.THREAD_GROUPS.size()))
        .append('\n');
  }

  /** Each thread group's median CPU seconds per GiB of {@code bytes}, ending the row. */
  private static void threadCells(
      StringBuilder md,
      List<RunResult> runs,
      Function<RunResult, Map<String, Double>> cpu,
      ToDoubleFunction<RunResult> bytes) {
    for (String g : MetricsPoller.THREAD_GROUPS) {
      md.append(' ')
          .append(
              cores(
                  median(
                      runs, r -> cpu.apply(r).getOrDefault(g, 0.0) / gib(bytes.applyAsDouble(r)))))
          .append(" |");
    }
    md.append('\n');
  }

  private static String cell(List<JfrProfile.Count> counts, int i, long total) {
    if (i >= counts.size()) {
      return " | ";
    }
    JfrProfile.Count c = counts.get(i);
    return "`" + c.name() + "` | " + percent(c.samples() / (double) total);
  }

  // ---- figures ----

  /** min(loopback, disk) of the medians; the disk alone when iperf3 was not run. */
  private double limit() {
    double disk = results.diskBytesPerSecond.median();
    return results.loopbackBytesPerSecond.isEmpty()
        ? disk
        : Math.min(disk, results.loopbackBytesPerSecond.median());
  }

  private String limitSource() {
    if (results.loopbackBytesPerSecond.isEmpty()) {
      return " (the disk's; iperf3 not run)";
    }
    return results.diskBytesPerSecond.median() <= results.loopbackBytesPerSecond.median()
        ? " (the disk's)"
        : " (loopback's)";
  }

  private static Series series(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    Series s = new Series();
    runs.forEach(r -> s.add(f.applyAsDouble(r)));
    return s;
  }

  private static double median(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    return series(runs, f).median();
  }

  private static double max(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    return series(runs, f).max();
  }

  private static double gib(double bytes) {
    return bytes / (1L << 30);
  }

  private static String rateWithRange(Series s) {
    return rate(s.median()) + " (" + range(s) + ")";
  }

  private static String range(Series s) {
    return String.format(Locale.ROOT, "%,.0f-%,.0f", s.min() / (1 << 20), s.max() / (1 << 20));
  }

  private static String cores(double cores) {
    return Double.isNaN(cores) ? "n/a" : String.format(Locale.ROOT, "%.2f", cores);
  }

  private static String yes(boolean held) {
    return held ? "**yes**" : "**no**";
  }

  private static String join(List<Integer> values) {
    return String.join(", ", values.stream().map(String::valueOf).toList());
  }

  /** The JVM options of a command line: what lies between the executable and the main class. */
  static String jvmOptions(String commandLine) {
    String[] parts = commandLine.split(" ");
    StringBuilder options = new StringBuilder();
    for (int i = 1; i < parts.length; i++) {
      if (parts[i].equals("-cp") || parts[i].equals("-classpath")) {
        i++;
        continue;
      }
      if (!parts[i].startsWith("-")) {
        break;
      }
      if (parts[i].startsWith("-Dlog4j2.configurationFile")
          || parts[i].startsWith("-Dsluice.log")
          || parts[i].startsWith("-Dsluice.ready")
          || parts[i].startsWith("-XX:StartFlightRecording")) {
        continue;
      }
      options.append(options.length() == 0 ? "" : " ").append(parts[i]);
    }
    return options.toString();
  }

  private static String relative(String path) {
    String cwd = java.nio.file.Path.of("").toAbsolutePath() + "/";
    return path.startsWith(cwd) ? path.substring(cwd.length()) : path;
  }
}
