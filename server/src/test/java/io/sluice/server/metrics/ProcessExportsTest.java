package io.sluice.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.prometheus.client.Collector.MetricFamilySamples;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.hotspot.StandardExports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process series, the same as the hotspot exporter's, and only those a scrape names. */
class ProcessExportsTest {

  @Test
  void exportsTheSameSeriesAsTheHotspotExporter() {
    assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "Linux /proc");
    assertEquals(
        sampleNames(new StandardExports().collect()), sampleNames(new ProcessExports().collect()));
  }

  @Test
  void aScrapeNamingOneSeriesGetsOnlyThatOne() {
    assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "Linux /proc");
    CollectorRegistry registry = new CollectorRegistry(true);
    new ProcessExports().register(registry);
    List<MetricFamilySamples> scraped =
        Collections.list(registry.filteredMetricFamilySamples(Set.of(ProcessExports.RESIDENT)));
    assertEquals(Set.of(ProcessExports.RESIDENT), sampleNames(scraped));
    double resident = scraped.get(0).samples.get(0).value;
    assertTrue(resident > 1 << 20, "resident bytes " + resident);

    scraped = Collections.list(registry.filteredMetricFamilySamples(Set.of(ProcessExports.CPU)));
    assertEquals(Set.of(ProcessExports.CPU), sampleNames(scraped));
  }

  @Test
  void memoryIsReadFromTheStatusFile(@TempDir Path dir) throws Exception {
    Path status = dir.resolve("status");
    Files.writeString(status, "Name:\tjava\nVmSize:\t  2048 kB\nVmRSS:\t   512 kB\nThreads:\t9\n");
    List<MetricFamilySamples> scraped =
        new ProcessExports(status)
            .collect(
                name ->
                    name.equals(ProcessExports.VIRTUAL) || name.equals(ProcessExports.RESIDENT));
    assertEquals(2, scraped.size());
    assertEquals(2048 * 1024.0, value(scraped, ProcessExports.VIRTUAL));
    assertEquals(512 * 1024.0, value(scraped, ProcessExports.RESIDENT));
  }

  @Test
  void noStatusFileMeansNoMemorySeries(@TempDir Path dir) {
    assertTrue(
        new ProcessExports(dir.resolve("absent"))
            .collect(name -> name.equals(ProcessExports.RESIDENT))
            .isEmpty());
  }

  private static double value(List<MetricFamilySamples> families, String name) {
    return families.stream()
        .flatMap(f -> f.samples.stream())
        .filter(s -> s.name.equals(name))
        .findFirst()
        .orElseThrow()
        .value;
  }

  private static Set<String> sampleNames(List<MetricFamilySamples> families) {
    Set<String> names = new TreeSet<>();
    families.forEach(f -> f.samples.forEach(s -> names.add(s.name)));
    return names;
  }
}
