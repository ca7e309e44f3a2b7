package io.sluice.benchmark.report;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns a {@link BenchRecord} into the Markdown of its section: the run's facts, its settings, its
 * tables and its targets. What the figures mean is written once, by hand, above the section in the
 * benchmark's Markdown file; nothing here explains them.
 */
public final class Renderer {
  /** Cells that are figures: right-aligned when every cell of a column is one. */
  private static final Pattern FIGURE = Pattern.compile("[-+]?[0-9][0-9,.]*.*|n/a|");

  private Renderer() {}

  /** The section's body (everything below its heading). */
  public static String markdown(BenchRecord record) {
    StringBuilder md = new StringBuilder();
    md.append("- Run: ").append(record.run()).append('\n');
    md.append("- Machine: ").append(record.machine()).append('\n');
    md.append("- Command: `").append(record.command()).append("`\n");
    md.append("- Commit: ").append(record.commit()).append("\n\n");
    if (!record.settings().isEmpty()) {
      md.append("Settings:\n\n");
      for (Map.Entry<String, String> e : record.settings().entrySet()) {
        md.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
      }
      md.append('\n');
    }
    for (String chart : record.charts()) {
      md.append("![").append(record.title()).append("](").append(chart).append(")\n\n");
    }
    for (Table table : record.tables()) {
      table(md, table);
    }
    if (!record.checks().isEmpty()) {
      Table targets = Table.of("Targets", "Target", "Measured", "Met");
      record
          .checks()
          .forEach(c -> targets.row(c.target(), c.measured(), c.met() ? "**met**" : "**missed**"));
      table(md, targets);
    }
    return md.toString().strip() + "\n";
  }

  private static void table(StringBuilder md, Table table) {
    if (!table.title().isEmpty()) {
      md.append("### ").append(table.title()).append("\n\n");
    }
    md.append('|');
    table.columns().forEach(c -> md.append(' ').append(escape(c)).append(" |"));
    md.append("\n|");
    for (int i = 0; i < table.columns().size(); i++) {
      md.append(i > 0 && figures(table.rows(), i) ? "---:|" : "---|");
    }
    md.append('\n');
    for (List<String> row : table.rows()) {
      md.append('|');
      row.forEach(c -> md.append(' ').append(escape(c)).append(" |"));
      md.append('\n');
    }
    md.append('\n');
  }

  private static boolean figures(List<List<String>> rows, int column) {
    return !rows.isEmpty() && rows.stream().allMatch(r -> FIGURE.matcher(r.get(column)).matches());
  }

  private static String escape(String cell) {
    return cell.replace("|", "\\|").replace("\n", " ");
  }
}
