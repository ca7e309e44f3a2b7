package io.sluice.benchmark.server;

import io.sluice.benchmark.JfrProfile;
import io.sluice.benchmark.MetricsPoller;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What one run measured: {@code clients} map tasks pushed into one shuffle, committed, and then as
 * many readers read it all back. Times are seconds from the first push.
 *
 * @param noBufferRefusals pushes the server refused with NO_BUFFER during ingest (its {@code
 *     sluice_server_push_rejections_total{reason="NO_BUFFER"}}); each was sent again
 * @param pushWaits pushes the server held back unread until its pool had room ({@code
 *     sluice_server_push_waits_total})
 * @param ackSeconds until every push was acknowledged
 * @param flushedSeconds until the server had written what it flushes (the last flush's end, to the
 *     sampling interval)
 * @param ingestEndSeconds when the ingest phase's last metrics were taken and reading began
 * @param readSeconds length of the read phase
 * @param flushedBytes bytes the server wrote to disk during the run; the rest stayed in memory
 * @param serverPushedBytes bytes the server counted as accepted, to compare with the acknowledged
 * @param serverCpuIngest the server's CPU seconds during the ingest phase
 * @param serverCpuRead the server's CPU seconds during the read phase
 * @param serverThreadCpuIngest the server's CPU seconds during the ingest phase by group of threads
 *     ({@code sluice_server_cpu_seconds_total}), and {@code serverThreadCpuRead} during the read
 *     phase
 * @param gcSeconds the server's GC time over the whole run, and {@code gcCount} its collections
 * @param readMemoryBytes bytes the server sent from memory (and {@code readDiskBytes} from files)
 * @param windows the ingest and read phases in wall-clock time, to cut the server's profile
 */
record RunResult(
    int clients,
    long ackedBytes,
    long ackedBlocks,
    long noBufferRefusals,
    long pushWaits,
    double ackSeconds,
    double flushedSeconds,
    double ingestEndSeconds,
    double readSeconds,
    long flushedBytes,
    long serverPushedBytes,
    double serverCpuIngest,
    double serverCpuRead,
    Map<String, Double> serverThreadCpuIngest,
    Map<String, Double> serverThreadCpuRead,
    double benchmarkCoresIngest,
    double benchmarkCoresRead,
    double machineCoresIngest,
    double machineCoresRead,
    double gcSeconds,
    long gcCount,
    long readMemoryBytes,
    long readDiskBytes,
    ReadSummary read,
    Peaks peaks,
    Refusals refusals,
    int sampleMillis,
    List<JfrProfile.Window> windows) {

  /** What the readers got that {@link ReadCheck} found intact, and what it found wrong. */
  record ReadSummary(long blocks, long bytes, long problems, List<String> firstProblems) {}

  /**
   * The highest values sampled. {@code directTotal} is Netty's direct memory (push pool, network
   * pool, read slices) plus the JDK's own direct buffers, as one sample saw them together; {@code
   * heap} the server's heap in use (garbage included).
   */
  record Peaks(
      long samples,
      double pushHeld,
      double pushAllocated,
      double network,
      double nettyDirect,
      double jdkDirect,
      double directTotal,
      double readUsed,
      double resident,
      double flushQueue,
      double heap) {

    static Peaks of(List<MetricsPoller.Sample> samples) {
      double[] max = new double[10];
      for (MetricsPoller.Sample s : samples) {
        double netty = s.get(MetricsPoller.NETTY_DIRECT);
        double jdk = s.get(MetricsPoller.JDK_DIRECT);
        double[] v = {
          s.get(MetricsPoller.PUSH_HELD),
          s.get(MetricsPoller.PUSH_ALLOCATED),
          s.get(MetricsPoller.NETWORK),
          netty,
          jdk,
          netty + jdk,
          s.get(MetricsPoller.READ_USED),
          s.get(MetricsPoller.RESIDENT),
          s.get(MetricsPoller.FLUSH_QUEUE),
          s.get(MetricsPoller.HEAP)
        };
        for (int i = 0; i < max.length; i++) {
          max[i] = Math.max(max[i], v[i]);
        }
      }
      return new Peaks(
          samples.size(),
          max[0],
          max[1],
          max[2],
          max[3],
          max[4],
          max[5],
          max[6],
          max[7],
          max[8],
          max[9]);
    }
  }

  /**
   * How full the push pool's chunks were with blocks while it refused pushes: for each sample after
   * which the server had answered more NO_BUFFER, the blocks' bytes over the chunks' bytes.
   *
   * @param samples samples taken
   * @param refusing samples after which more pushes had been refused
   * @param medianFill the median share of the pool's held memory that blocks filled at those
   */
  record Refusals(long samples, long refusing, double medianFill) {

    static Refusals of(List<MetricsPoller.Sample> samples) {
      List<Double> fill = new ArrayList<>();
      for (int i = 1; i < samples.size(); i++) {
        MetricsPoller.Sample s = samples.get(i);
        double held = s.get(MetricsPoller.PUSH_HELD);
        if (s.since(samples.get(i - 1), MetricsPoller.NO_BUFFER) > 0 && held > 0) {
          fill.add(s.get(MetricsPoller.PUSH_ALLOCATED) / held);
        }
      }
      Collections.sort(fill);
      return new Refusals(
          samples.size(), fill.size(), fill.isEmpty() ? Double.NaN : fill.get(fill.size() / 2));
    }
  }

  double ackBytesPerSecond() {
    return ackedBytes / ackSeconds;
  }

  /** Bytes on disk per second of ingest: the rate at which pushed data was taken and written. */
  double flushedBytesPerSecond() {
    return flushedBytes / flushedSeconds;
  }

  double readBytesPerSecond() {
    return read.bytes() / readSeconds;
  }

  double totalSeconds() {
    return ingestEndSeconds + readSeconds;
  }

  /** The server's GC time as a share of the run's wall time. */
  double gcShare() {
    return gcSeconds / totalSeconds();
  }

  double serverCoresIngest() {
    return serverCpuIngest / ingestEndSeconds;
  }

  double serverCoresRead() {
    return serverCpuRead / readSeconds;
  }

  /** Every acknowledged block read back intact, once, from a server that counted the same bytes. */
  boolean intact() {
    return read.problems() == 0
        && read.blocks() == ackedBlocks
        && read.bytes() == ackedBytes
        && serverPushedBytes == ackedBytes;
  }
}
