package io.sluice.benchmark.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU time at one instant: this JVM's (the clients'), and the whole machine's busy and total time
 * from {@code /proc/stat} (Linux; absent elsewhere). Two snapshots give how many cores each used.
 */
record CpuSnapshot(
    long nanoTime, long benchmarkCpuNanos, long machineBusyTicks, long machineTotalTicks) {
  private static final Path PROC_STAT = Path.of("/proc/stat");

  static CpuSnapshot take() {
    long busy = -1;
    long total = -1;
    try {
      List<String> lines = Files.readAllLines(PROC_STAT, StandardCharsets.US_ASCII);
      // cpu  user nice system idle iowait irq softirq steal guest guest_nice
      String[] fields = lines.get(0).trim().split("\\s+");
      long sum = 0;
      for (int i = 1; i <= Math.min(8, fields.length - 1); i++) {
        sum += Long.parseLong(fields[i]);
      }
      long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
      total = sum;
      busy = sum - idle;
    } catch (IOException | RuntimeException e) {
      // not Linux: the machine figures are reported as unknown
    }
    long own =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    return new CpuSnapshot(System.nanoTime(), own, busy, total);
  }

  /** Cores this JVM kept busy on average since {@code earlier}. */
  double benchmarkCoresSince(CpuSnapshot earlier) {
    return (benchmarkCpuNanos - earlier.benchmarkCpuNanos) / (double) (nanoTime - earlier.nanoTime);
  }

  /** Cores the whole machine kept busy on average since {@code earlier}, or NaN if unknown. */
  double machineCoresSince(CpuSnapshot earlier) {
    if (machineTotalTicks < 0
        || earlier.machineTotalTicks < 0
        || machineTotalTicks == earlier.machineTotalTicks) {
      return Double.NaN;
    }
    double busyFraction =
        (machineBusyTicks - earlier.machineBusyTicks)
            / (double) (machineTotalTicks - earlier.machineTotalTicks);
    return busyFraction * Runtime.getRuntime().availableProcessors();
  }
}
