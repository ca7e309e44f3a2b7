package io.sluice.benchmark.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.BenchmarkReport;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Renders benchmark records again into their Markdown files: {@code <benchmark>.json} into the
 * section {@code <benchmark>} of the file it names, in the same directory. For a change of the
 * renderer, or to check that a recorded file is what its record says. Other JSON files are passed
 * over with a line saying so.
 */
public final class RenderRecords {
  private RenderRecords() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.err.println("Usage: RenderRecords docs/benchmarks/<benchmark>.json...");
      System.exit(2);
    }
    ObjectMapper json = new ObjectMapper();
    for (String arg : args) {
      Path file = Path.of(arg);
      JsonNode tree = json.readTree(file.toFile());
      if (!tree.hasNonNull("benchmark") || !tree.hasNonNull("document")) {
        System.out.println("Passed over " + file + ": not a benchmark record");
        continue;
      }
      BenchRecord record = json.treeToValue(tree, BenchRecord.class);
      Path markdown = file.resolveSibling(record.document());
      BenchmarkReport.render(markdown, record);
      System.out.println("Rendered " + file + " into " + markdown);
    }
  }
}
