package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code --spark} picks the Spark installation, the client and the job's jar, and keeps each line's
 * figures apart: its own report under docs/benchmarks/ and its own chart; {@code --tpcds} picks the
 * TPC-DS suite, with a report file of its own.
 */
class TpcSettingsTest {
  private static final Path HOME = Path.of("/checkout");

  @Test
  void spark35IsTheDefaultAndWritesTheTpcSection() {
    TpcSettings s = TpcSettings.parse(new String[] {"--home", HOME.toString()});
    assertEquals("3.5", s.spark);
    assertEquals("tpc", s.section());
    assertEquals(HOME.resolve("docs/benchmarks/tpc.png"), s.chart);
    assertEquals(HOME.resolve("docs/benchmarks/tpc.md"), s.markdown);
    assertEquals(HOME.resolve("examples/target/spark-home"), s.install().sparkHome());
  }

  @Test
  void spark4HasItsOwnSectionChartAndSparkHome() {
    TpcSettings s = TpcSettings.parse(new String[] {"--home", HOME.toString(), "--spark", "4"});
    assertEquals("tpc-spark-4", s.section());
    assertEquals(HOME.resolve("docs/benchmarks/tpc-spark-4.png"), s.chart);
    assertEquals(HOME.resolve("docs/benchmarks/tpc-spark-4.md"), s.markdown);
    assertEquals(HOME.resolve("examples-spark-4/target/spark-home"), s.install().sparkHome());
    // The tables are the same for both lines.
    assertEquals(TpcSettings.parse(new String[] {"--home", HOME.toString()}).data, s.data);
  }

  @Test
  void tpcdsReportsIntoAFileOfItsOwnPerLineAndKeepsSparksBroadcasts() {
    TpcSettings s = TpcSettings.parse(new String[] {"--home", HOME.toString(), "--tpcds"});
    assertEquals(Suite.TPCDS, s.suite);
    assertEquals("tpcds", s.section());
    assertEquals(HOME.resolve("docs/benchmarks/tpcds.md"), s.markdown);
    assertEquals(HOME.resolve("docs/benchmarks/tpcds.png"), s.chart);
    assertEquals("32", s.commonSparkConf().get("spark.sql.shuffle.partitions"));
    assertEquals(null, s.commonSparkConf().get("spark.sql.autoBroadcastJoinThreshold"));
    assertEquals(
        DataLocation.of(HOME.resolve("benchmark/target/tpc-data/tpcds-sf-1")),
        s.suite.tables(s.data, s.scale, s.seed));

    TpcSettings four =
        TpcSettings.parse(
            new String[] {
              "--home", HOME.toString(), "--tpcds", "--spark", "4", "--queries", "q1,q14a,q99"
            });
    assertEquals("tpcds-spark-4", four.section());
    assertEquals(HOME.resolve("docs/benchmarks/tpcds-spark-4.md"), four.markdown);
    assertEquals("q1,q14a,q99", four.queries);
  }

  @Test
  void rddIsTenMillionRecordsOnSixteenTasksOverFiveRounds() {
    TpcSettings s = TpcSettings.parse(new String[] {"--home", HOME.toString(), "--rdd"});
    assertEquals(Suite.RDD, s.suite);
    assertEquals("rdd", s.section());
    assertEquals(HOME.resolve("docs/benchmarks/rdd.md"), s.markdown);
    assertEquals(2.0, s.scale);
    assertEquals(10_000_000, TableLayout.orderCount(s.scale) * 10 / 3);
    assertEquals(5, s.rounds);
    assertEquals(16, Suite.RDD_PARTITIONS);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--rdd", "--queries", "join"}));
    assertTrue(e.getMessage().contains("leave --queries out"), e.getMessage());
  }

  @Test
  void tpcdsQueryNamesAreCheckedBeforeAnythingRuns() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--tpcds", "--queries", "q1,join"}));
    assertTrue(e.getMessage().contains("TPC-DS query names"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--queries", "q1"}));
    assertTrue(e.getMessage().contains("unknown query 'q1'"), e.getMessage());
  }

  @Test
  void settingsOfTheDriverJvmAreRefusedWithWhatWorks() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                TpcSettings.parse(
                    new String[] {
                      "--conf", "spark.driver.extraJavaOptions=-XX:StartFlightRecording"
                    }));
    assertTrue(e.getMessage().contains("SLUICE_BENCH_SPARK_JAVA_OPTS"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--sluice-conf", "spark.driver.memory=8g"}));
    assertTrue(e.getMessage().contains("--driver-memory"), e.getMessage());
  }

  /**
   * A cluster's run: the tables at a URI its executors read, the plain path of this machine as a
   * {@code file:} URI (which a cluster whose default file system is HDFS would otherwise misread),
   * and an existing Sluice deployment instead of servers of the harness's own.
   */
  @Test
  void aClusterRunNamesItsStorageAndItsSluiceDeployment() {
    TpcSettings s =
        TpcSettings.parse(
            new String[] {
              "--home",
              HOME.toString(),
              "--tpcds",
              "--master",
              "yarn",
              "--coordinators",
              "coord-1:19997,coord-2:19997",
              "--data",
              "hdfs://nn:8020/bench/"
            });
    assertEquals("hdfs://nn:8020/bench/tpcds-sf-1", s.suite.tables(s.data, 1, 1).uri());
    assertEquals("coord-1:19996", s.coordinatorHttp);
    assertTrue(s.onYarn());
    assertEquals(
        "file:///checkout/benchmark/target/tpc-data/tpcds-sf-1",
        TpcSettings.parse(new String[] {"--home", HOME.toString(), "--tpcds"})
            .suite
            .tables(DataLocation.parse("benchmark/target/tpc-data", HOME), 1, 1)
            .uri());
    assertEquals(
        "file:///data/tpc/sf-1-seed-1",
        Suite.TPC.tables(DataLocation.parse("/data/tpc/", HOME), 1, 1).uri());

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--coordinators", "coord-1"}));
    assertTrue(e.getMessage().contains("host:port of each coordinator"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--coordinator-http", "coord-1:19996"}));
    assertTrue(e.getMessage().contains("give --coordinators too"), e.getMessage());
  }

  @Test
  void anotherLineIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TpcSettings.parse(new String[] {"--spark", "3.4"}));
    assertTrue(e.getMessage().contains("--spark is '3.4'"), e.getMessage());
  }
}
