package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code --spark} picks the Spark installation, the client and the job's jar, and keeps each line's
 * figures apart: its own section of docs/benchmarks.md and its own chart.
 */
class TpcSettingsTest {
  private static final Path HOME = Path.of("/checkout");

  @Test
  void spark35IsTheDefaultAndWritesTheTpcSection() {
    TpcSettings s = TpcSettings.parse(new String[] {"--home", HOME.toString()});
    assertEquals("3.5", s.spark);
    assertEquals("tpc", s.section());
    assertEquals(HOME.resolve("docs/benchmarks/tpc.png"), s.chart);
    assertEquals(HOME.resolve("docs/benchmarks.md"), s.markdown);
    assertEquals(HOME.resolve("examples/target/spark-home"), s.install().sparkHome());
  }

  @Test
  void spark4HasItsOwnSectionChartAndSparkHome() {
    TpcSettings s = TpcSettings.parse(new String[] {"--home", HOME.toString(), "--spark", "4"});
    assertEquals("tpc-spark-4", s.section());
    assertEquals(HOME.resolve("docs/benchmarks/tpc-spark-4.png"), s.chart);
    assertEquals(HOME.resolve("docs/benchmarks.md"), s.markdown);
    assertEquals(HOME.resolve("examples-spark-4/target/spark-home"), s.install().sparkHome());
    // The tables are the same for both lines.
    assertEquals(TpcSettings.parse(new String[] {"--home", HOME.toString()}).data, s.data);
  }

  @Test
  void settingsOfTheDriverJvmAreRefusedWithWhatWorks() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TpcSettings.parse(new String[] {"--conf",
            "spark.driver.extraJavaOptions=-XX:StartFlightRecording"}));
    assertTrue(e.getMessage().contains("SLUICE_BENCH_SPARK_JAVA_OPTS"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> TpcSettings.parse(new String[] {"--sluice-conf", "spark.driver.memory=8g"}));
    assertTrue(e.getMessage().contains("--driver-memory"), e.getMessage());
  }

  @Test
  void anotherLineIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TpcSettings.parse(new String[] {"--spark", "3.4"}));
    assertTrue(e.getMessage().contains("--spark is '3.4'"), e.getMessage());
  }
}
