package io.sluice.server.metrics;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Predicate;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The standard {@code process_*} series, computed only for the names a scrape asks for. The hotspot
 * exporter's {@code StandardExports} computes all of them at every scrape, counting the process's
 * open descriptors and reading {@code /proc/self/status} even for a scrape that names one gauge; a
 * sampler asking for the resident memory every 50 ms then paid for all of it.
 */
final class ProcessExports extends Collector {
  static final String CPU = "process_cpu_seconds_total";
  static final String START = "process_start_time_seconds";
  static final String OPEN_FDS = "process_open_fds";
  static final String MAX_FDS = "process_max_fds";
  static final String VIRTUAL = "process_virtual_memory_bytes";
  static final String RESIDENT = "process_resident_memory_bytes";

  private final java.lang.management.OperatingSystemMXBean os =
      ManagementFactory.getOperatingSystemMXBean();
  private final double startSeconds = ManagementFactory.getRuntimeMXBean().getStartTime() / 1e3;
  private final Path status;

  ProcessExports() {
    this(Path.of("/proc/self/status"));
  }

  ProcessExports(Path status) {
    this.status = status;
  }

  @Override
  public List<MetricFamilySamples> collect() {
    return collect((Predicate<String>) null);
  }

  @Override
  public List<MetricFamilySamples> collect(Predicate<String> names) {
    List<MetricFamilySamples> out = new ArrayList<>();
    if (wanted(names, CPU) && os instanceof OperatingSystemMXBean bean) {
      long nanos = bean.getProcessCpuTime();
      if (nanos >= 0) {
        out.add(
            new CounterMetricFamily(
                CPU, "Total user and system CPU time spent in seconds.", nanos / 1e9));
      }
    }
    if (wanted(names, START)) {
      out.add(
          new GaugeMetricFamily(
              START, "Start time of the process since unix epoch in seconds.", startSeconds));
    }
    if (os instanceof UnixOperatingSystemMXBean unix) {
      if (wanted(names, OPEN_FDS)) {
        out.add(
            new GaugeMetricFamily(
                OPEN_FDS, "Number of open file descriptors.", unix.getOpenFileDescriptorCount()));
      }
      if (wanted(names, MAX_FDS)) {
        out.add(
            new GaugeMetricFamily(
                MAX_FDS,
                "Maximum number of open file descriptors.",
                unix.getMaxFileDescriptorCount()));
      }
    }
    if (wanted(names, VIRTUAL) || wanted(names, RESIDENT)) {
      addMemory(out, names);
    }
    return out;
  }

  /** VmSize and VmRSS of {@code /proc/self/status}, in kB there; absent elsewhere than Linux. */
  private void addMemory(List<MetricFamilySamples> out, Predicate<String> names) {
    List<String> lines;
    try {
      lines = Files.readAllLines(status);
    } catch (IOException | UnsupportedOperationException e) {
      return;
    }
    for (String line : lines) {
      if (line.startsWith("VmSize:") && wanted(names, VIRTUAL)) {
        out.add(new GaugeMetricFamily(VIRTUAL, "Virtual memory size in bytes.", kilobytes(line)));
      } else if (line.startsWith("VmRSS:") && wanted(names, RESIDENT)) {
        out.add(new GaugeMetricFamily(RESIDENT, "Resident memory size in bytes.", kilobytes(line)));
      }
    }
  }

  /** {@code Name: 1234 kB} as bytes. */
  static double kilobytes(String line) {
    String[] fields = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
    return Double.parseDouble(fields[0]) * 1024;
  }

  private static boolean wanted(Predicate<String> names, String name) {
    return names == null || names.test(name);
  }
}
