package io.sluice.benchmark.tpc;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The query suites the benchmark runs: the TPC-style shuffle queries of this project (TPC-H-like
 * tables) or TPC-DS (the query texts of the Spark line's own test jar). Free of Spark classes, so
 * that the harness can find each suite's tables.
 */
enum Suite {
  TPC("tpc"),
  TPCDS("tpcds");

  /** Marks a TPC-DS data set as complete: its tables are written one after the other. */
  static final String TPCDS_COMPLETE = "_COMPLETE";

  private final String label;

  Suite(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }

  /**
   * Where the suite's tables at {@code scale} live under {@code dataRoot}. TPC-DS has no seed:
   * dsdgen's generator gives the same rows at a scale every time.
   */
  Path tables(Path dataRoot, double scale, long seed) {
    return this == TPC ? TableLayout.directory(dataRoot, scale, seed)
        : dataRoot.resolve("tpcds-sf-" + ScaleFactor.format(scale));
  }

  /** Whether every table in {@code dir} was written completely. */
  boolean complete(Path dir) {
    return this == TPC ? TableLayout.complete(dir) : Files.exists(dir.resolve(TPCDS_COMPLETE));
  }
}
