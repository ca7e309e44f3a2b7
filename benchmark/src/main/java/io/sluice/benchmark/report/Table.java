package io.sluice.benchmark.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One table of a benchmark's record: formatted cells, so that the record renders exactly as its
 * benchmark printed it; the raw figures behind them stay in {@link BenchRecord#figures()}.
 *
 * @param title a heading-like caption; may be empty
 * @param columns the header cells
 * @param rows each row's cells, as many as {@code columns}
 */
public record Table(String title, List<String> columns, List<List<String>> rows) {

  public Table {
    columns = List.copyOf(columns);
    rows = new ArrayList<>(rows);
  }

  public static Table of(String title, String... columns) {
    return new Table(title, Arrays.asList(columns), new ArrayList<>());
  }

  /** Adds a row; each value is rendered with {@code String.valueOf}. */
  public Table row(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException(
          "row of " + cells.length + " cells in a table of " + columns.size() + " columns");
    }
    rows.add(Arrays.stream(cells).map(String::valueOf).toList());
    return this;
  }
}
