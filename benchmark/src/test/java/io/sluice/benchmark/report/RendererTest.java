package io.sluice.benchmark.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.benchmark.BenchmarkReport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RendererTest {
  private static BenchRecord record() {
    Table rates =
        Table.of("Throughput", "Clients", "Rate", "Note")
            .row(1, "1,200 MiB/s", "warm")
            .row(16, "980 MiB/s", "a | b");
    return BenchmarkReport.record(
        "example",
        "An example benchmark",
        "bin/bench-example.sh --rounds 2",
        Map.of("Rounds", "2"),
        List.of(rates),
        List.of(new Check("Rate at least 1,000 MiB/s with 16 clients", "980 MiB/s", false)),
        Map.of("rates", List.of(1.2e9, 0.98e9)));
  }

  @Test
  void rendersFactsSettingsTablesAndTargets() {
    String md = Renderer.markdown(record());
    assertTrue(md.startsWith("- Run: "), md);
    assertTrue(md.contains("- Command: `bin/bench-example.sh --rounds 2`\n"), md);
    assertTrue(md.contains("- Rounds: 2\n"), md);
    // Columns of figures are right-aligned, others left; a cell's pipe is escaped.
    assertTrue(
        md.contains(
            "### Throughput\n\n| Clients | Rate | Note |\n|---|---:|---|\n"
                + "| 1 | 1,200 MiB/s | warm |\n| 16 | 980 MiB/s | a \\| b |\n"),
        md);
    assertTrue(
        md.contains("| Rate at least 1,000 MiB/s with 16 clients | 980 MiB/s | **missed** |"), md);
  }

  @Test
  void aWrittenRecordRendersIntoItsSectionAgainAsWritten(@TempDir Path dir) throws Exception {
    Path markdown = dir.resolve("example.md");
    Files.writeString(
        markdown,
        "# Example\n\nWhat the figures mean.\n\n<!-- BEGIN example -->\nold\n<!-- END example -->\n"
            + "\nAfter.\n",
        StandardCharsets.UTF_8);
    BenchmarkReport.write(markdown, record());
    String written = Files.readString(markdown, StandardCharsets.UTF_8);
    assertTrue(written.startsWith("# Example\n\nWhat the figures mean.\n\n<!-- BEGIN example -->"));
    assertTrue(written.endsWith("<!-- END example -->\n\nAfter.\n"), written);

    Files.writeString(markdown, "# Example\n", StandardCharsets.UTF_8);
    RenderRecords.main(new String[] {dir.resolve("example.json").toString()});
    String rendered = Files.readString(markdown, StandardCharsets.UTF_8);
    assertEquals(
        written.substring(written.indexOf("<!-- BEGIN"), written.indexOf("<!-- END")),
        rendered.substring(rendered.indexOf("<!-- BEGIN"), rendered.indexOf("<!-- END")));
  }

  @Test
  void aTableRefusesARowOfAnotherWidth() {
    Table t = Table.of("", "a", "b");
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> t.row("only one"));
  }
}
