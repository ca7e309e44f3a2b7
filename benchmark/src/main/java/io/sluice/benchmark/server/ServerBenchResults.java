package io.sluice.benchmark.server;

import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.Series;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Everything one invocation measured. */
final class ServerBenchResults {
  /** iperf3's single-stream loopback rate, bytes per second, per round. */
  final Series loopbackBytesPerSecond = new Series();

  /** dd's sequential write rate in the servers' data directory, bytes per second, per round. */
  final Series diskBytesPerSecond = new Series();

  /** dd's sequential write rate into the page cache (no sync), bytes per second, per round. */
  final Series pageCacheBytesPerSecond = new Series();

  /** What dd's writes to the device (around the page cache) cost: CPU seconds per GiB. */
  final Series diskCpuPerGib = new Series();

  /** What dd's writes into the page cache cost: CPU seconds per GiB, per round. */
  final Series pageCacheCpuPerGib = new Series();

  /**
   * {@link SendfileProbe}: a file written past the page cache sent over loopback with sendfile,
   * over as many connections as clients: what it cost the sending threads, CPU seconds per GiB, per
   * round; by connection count.
   */
  final Map<Integer, Series> sendfileCpuPerGib = new TreeMap<>();

  /** The same sends' rates, bytes per second. */
  final Map<Integer, Series> sendfileBytesPerSecond = new TreeMap<>();

  /** What iperf3's receiving end spent: CPU seconds per GiB received, per round. */
  final Series loopbackReceiveCpuPerGib = new Series();

  /**
   * {@link ReceiveCopyProbe}: a bare receiver's CPU seconds per GiB with as many connections as
   * clients, into a pool-sized region, per round; by connection count.
   */
  final Map<Integer, Series> pooledReceiveCpuPerGib = new TreeMap<>();

  /** The same receives' rates, bytes per second. */
  final Map<Integer, Series> pooledReceiveBytesPerSecond = new TreeMap<>();

  String iperfVersion;
  String ddCommand;
  String ddPageCacheCommand;

  /** The throughput runs, by client count, one per round. */
  final Map<Integer, List<RunResult>> runs = new TreeMap<>();

  ServerSetup throughputServer;

  /** The throughput server's profile during the ingest and the read phases of the largest runs. */
  JfrProfile.Summary ingestProfile;

  JfrProfile.Summary readProfile;
  int profiledClients;

  RunResult contract;
  ServerSetup contractServer;
  boolean contractServerAlive;

  void add(RunResult run) {
    runs.computeIfAbsent(run.clients(), c -> new ArrayList<>()).add(run);
  }

  /**
   * How a server was set up.
   *
   * @param conf the settings of its configuration file
   * @param commandLine its JVM's command line
   * @param directMemoryLimit its {@code -XX:MaxDirectMemorySize}
   * @param recording where its flight recording is, or null
   */
  record ServerSetup(
      List<String> conf,
      String commandLine,
      long bufferCapacity,
      long readCapacity,
      long directMemoryLimit,
      String recording) {}
}
