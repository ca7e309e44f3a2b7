package io.sluice.benchmark.tpc;

import java.util.function.Predicate;

/**
 * The query suites the benchmark runs: the TPC-style shuffle queries of this project (TPC-H-like
 * tables), TPC-DS (the query texts of the Spark line's own test jar), or the plain RDD shuffle (the
 * {@code partitionby} query alone, 16 map and reduce tasks, no tables). Free of Spark classes, so
 * that the harness can find each suite's tables.
 */
enum Suite {
  TPC("tpc", "TPC-style queries"),
  TPCDS("tpcds", "TPC-DS"),
  RDD("rdd", "RDD shuffle");

  /** The RDD suite's map and reduce tasks, whatever the scale. */
  static final int RDD_PARTITIONS = 16;

  /** Marks a TPC-DS data set as complete: its tables are written one after the other. */
  static final String TPCDS_COMPLETE = "_COMPLETE";

  private final String label;
  private final String title;

  Suite(String label, String title) {
    this.label = label;
    this.title = title;
  }

  String label() {
    return label;
  }

  /** What reports call the suite. */
  String title() {
    return title;
  }

  /**
   * Where the suite's tables at {@code scale} live under {@code dataRoot}. TPC-DS has no seed:
   * dsdgen's generator gives the same rows at a scale every time.
   */
  DataLocation tables(DataLocation dataRoot, double scale, long seed) {
    return this == TPC
        ? TableLayout.directory(dataRoot, scale, seed)
        : dataRoot.child("tpcds-sf-" + ScaleFactor.format(scale));
  }

  /**
   * Whether every table in {@code dir} was written completely, as {@code exists} finds the marker
   * files; the RDD suite reads none.
   */
  boolean complete(DataLocation dir, Predicate<DataLocation> exists) {
    return switch (this) {
      case TPC -> TableLayout.complete(dir, exists);
      case TPCDS -> exists.test(dir.child(TPCDS_COMPLETE));
      case RDD -> true;
    };
  }
}
