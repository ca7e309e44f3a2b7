package io.sluice.benchmark.transport;

import static io.sluice.benchmark.Format.gbit;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.benchmark.BenchmarkReport;
import io.sluice.benchmark.Iperf3;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.NettyTransports;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Transport micro-benchmark: bulk push throughput with 1 MiB bodies on one and several connections
 * beside iperf3 on the same loopback, and the rate of 100-byte messages with and without
 * client-side batching. Prints a table and rewrites the {@code transport} section of {@code
 * docs/benchmarks/transport.md}. Run it with {@code bin/bench-transport.sh}.
 */
public final class TransportBenchmark {
  private static final String HOST = "127.0.0.1";

  private final BenchmarkSettings settings;
  private final PooledByteBufAllocator allocator;
  private final TransportContext context;
  private final Iperf3 iperf;

  private TransportBenchmark(BenchmarkSettings settings, Iperf3 iperf) {
    this.settings = settings;
    this.iperf = iperf;
    this.allocator = NettyTransports.pooledAllocator(Runtime.getRuntime().availableProcessors());
    this.context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "transport-benchmark", allocator);
  }

  public static void main(String[] args) throws Exception {
    BenchmarkSettings settings = BenchmarkSettings.FLAGS.parseOrExit(args, BenchmarkSettings::of);
    new TransportBenchmark(settings, Iperf3.requiredOrExit(settings.iperf())).run();
  }

  private void run() throws Exception {
    TransportConf conf = context.conf();
    TransportReport.Setup setup =
        new TransportReport.Setup(
            NettyTransports.resolve(conf.ioMode()).name().toLowerCase(Locale.ROOT),
            conf.serverThreads(),
            conf.clientThreads(),
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()),
            iperf == null ? null : iperf.version());
    TransportResults results = new TransportResults();
    SinkHandler sink = new SinkHandler();
    try (TransportServer server = context.createServer(HOST, 0, sink);
        TransportClientFactory clients = context.createClientFactory()) {
      PushRun pushes = new PushRun(clients, sink, HOST, server.port());
      for (int round = 1; round <= settings.rounds(); round++) {
        for (int connections : settings.connections()) {
          if (iperf != null) {
            Iperf3.Measurement reference =
                iperf.measure(connections, settings.seconds(), settings.warmupSeconds());
            results.iperf(connections).add(reference.bitsPerSecond());
            results.iperfCpu(connections).add(reference.cpuSecondsPerGib());
            log(
                round,
                "iperf3, " + connections + " stream(s)",
                gbit(reference.bitsPerSecond())
                    + String.format(Locale.ROOT, ", %.2f CPU-s/GiB", reference.cpuSecondsPerGib()));
          }
          PushRun.Rate bulk = measure(pushes, connections, () -> Workloads.bulk(allocator));
          results.bulk(connections).add(bulk.bytesPerSecond());
          results.bulkCpu(connections).add(bulk.cpuSecondsPerGib());
          log(
              round,
              "Sluice bulk push, " + connections + " connection(s)",
              String.format(
                  Locale.ROOT,
                  "%,.0f MiB/s, %s, %.2f CPU-s/GiB",
                  bulk.bytesPerSecond() / (1 << 20),
                  gbit(bulk.bytesPerSecond() * 8),
                  bulk.cpuSecondsPerGib()));
        }
        PushRun.Rate unbatched = measure(pushes, 1, () -> Workloads.unbatched(allocator));
        results.unbatchedMessagesPerSecond.add(unbatched.blocksPerSecond());
        log(round, "100-byte messages, one per request", messages(unbatched));
        PushRun.Rate batched = measure(pushes, 1, () -> Workloads.batched(allocator));
        results.batchedMessagesPerSecond.add(batched.blocksPerSecond());
        log(
            round,
            "100-byte messages, " + Workloads.MESSAGES_PER_FRAME + " per request",
            messages(batched));
      }
    }
    BenchRecord record = new TransportReport(settings, setup, results).record();
    BenchmarkReport.publish(record, settings.output());
  }

  private PushRun.Rate measure(PushRun pushes, int connections, Supplier<PushWorkload> workload)
      throws Exception {
    return pushes.run(connections, workload, settings.warmupSeconds(), settings.seconds());
  }

  private static void log(int round, String what, String figure) {
    System.out.printf(Locale.ROOT, "round %d  %-45s %s%n", round, what, figure);
  }

  private static String messages(PushRun.Rate rate) {
    return String.format(Locale.ROOT, "%,.0f msg/s", rate.blocksPerSecond());
  }
}
