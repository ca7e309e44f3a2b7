package io.sluice.benchmark.server;

import java.util.List;

/**
 * What one run measured: {@code clients} map tasks pushed into one shuffle, committed, and then as
 * many readers read it all back. Times are seconds from the first push.
 *
 * @param mostRefusals the most times one frame was refused before the server took it
 * @param longestFrameWaitSeconds the longest time from a frame's first sending to its
 *     acknowledgement
 * @param ackSeconds until every push was acknowledged
 * @param flushedSeconds until the server had written what it flushes (the last flush's end, to the
 *     sampling interval)
 * @param ingestEndSeconds when the ingest phase's last metrics were taken and reading began
 * @param readSeconds length of the read phase
 * @param flushedBytes bytes the server wrote to disk during the run; the rest stayed in memory
 * @param serverPushedBytes bytes the server counted as accepted, to compare with the acknowledged
 * @param serverCpuIngest the server's CPU seconds during the ingest phase
 * @param serverCpuRead the server's CPU seconds during the read phase
 * @param gcSeconds the server's GC time over the whole run, and {@code gcCount} its collections
 * @param readMemoryBytes bytes the server sent from memory (and {@code readDiskBytes} from files)
 * @param windows the ingest and read phases in wall-clock time, to cut the server's profile
 */
record RunResult(
    int clients,
    long ackedBytes,
    long ackedBlocks,
    long retries,
    long retriedBytes,
    int mostRefusals,
    double longestFrameWaitSeconds,
    double ackSeconds,
    double flushedSeconds,
    double ingestEndSeconds,
    double readSeconds,
    long flushedBytes,
    long serverPushedBytes,
    double serverCpuIngest,
    double serverCpuRead,
    double benchmarkCoresIngest,
    double benchmarkCoresRead,
    double machineCoresIngest,
    double machineCoresRead,
    double gcSeconds,
    long gcCount,
    long readMemoryBytes,
    long readDiskBytes,
    ReadSummary read,
    MetricsPoller.Peaks peaks,
    MetricsPoller.Refusals refusals,
    int sampleMillis,
    List<JfrProfile.Window> windows) {

  /** What the readers verified. */
  record ReadSummary(long blocks, long bytes, long fromMemory, long fromDisk, long duplicates,
      long busyRetries, long problems, List<String> firstProblems) {
    static ReadSummary of(ReadTally tally) {
      return new ReadSummary(tally.verifiedBlocks.sum(), tally.verifiedBytes.sum(),
          tally.fromMemory.sum(), tally.fromDisk.sum(), tally.duplicates.sum(),
          tally.busyRetries.sum(), tally.problemCount(), tally.firstProblems());
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
    return read.problems() == 0 && read.blocks() == ackedBlocks && read.bytes() == ackedBytes
        && serverPushedBytes == ackedBytes;
  }
}
