package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.benchmark.Daemons;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the TPC benchmark working: {@code bin/sluice-bench} at the smoke size, one round of each
 * mode, with a coordinator and servers started by the harness through the shipped scripts. Every
 * query must give the same answer in both modes, the sluice mode must really push through the
 * servers, and the JSON, Markdown section and chart must be written (here, not into docs/).
 */
class TpcSmokeTest {
  @TempDir Path dir;

  @Test
  void smokeRunAgreesAcrossModesAndWritesTheReport() throws Exception {
    Path markdown = dir.resolve("benchmarks.md");
    Path chart = dir.resolve("tpc.png");
    Daemons.Result run = Daemons.run(projectRoot(), Map.of(), Duration.ofMinutes(10),
        "bin/sluice-bench", "--scale", "smoke", "--rounds", "1", "--run-timeout", "3m",
        "--output", dir.resolve("out").toString(), "--data", dir.resolve("data").toString(),
        "--markdown", markdown.toString(), "--chart", chart.toString());
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains(
        "every query gave the same row count and checksum in every round and mode"), run.output());
    for (String query : List.of("aggregate", "join", "sort", "skewjoin", "groupbykey",
        "repartition")) {
      assertEquals(2, count(run.output(), "Query " + query + ": "), run.output());
    }
    assertTrue(run.output().contains("AQE split skewed partitions"), run.output());

    Path json;
    try (Stream<Path> files = Files.list(dir.resolve("out"))) {
      json = files.filter(f -> f.getFileName().toString().startsWith("results-")).findFirst()
          .orElseThrow();
    }
    String results = Files.readString(json);
    long pushed = 0;
    Matcher m = Pattern.compile("\"pushedBytes\":(\\d+)").matcher(results);
    while (m.find()) {
      pushed = Math.max(pushed, Long.parseLong(m.group(1)));
    }
    assertTrue(pushed > 0, "no bytes went through the Sluice servers: " + results);
    assertTrue(results.contains("\"answersAgree\":true"), results);

    String section = Files.readString(markdown);
    assertTrue(section.contains("<!-- BEGIN tpc -->") && section.contains("<!-- END tpc -->"),
        section);
    assertTrue(section.contains("| skewjoin |"), section);
    assertTrue(Files.size(chart) > 1_000, "chart " + chart + " is missing or empty");
  }

  /** The checkout's root, which the parent POM passes to every test JVM. */
  private static Path projectRoot() {
    return Path.of(System.getProperty("sluice.project.root")).toAbsolutePath();
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
