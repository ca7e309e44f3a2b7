package io.sluice.benchmark.tpc;

import java.util.List;
import java.util.function.Predicate;

/**
 * Where the generated tables live: one directory per scale factor and seed, one Parquet directory
 * per table. Free of Spark classes, for the harness.
 */
final class TableLayout {
  static final String LINEITEM = "lineitem";
  static final String ORDERS = "orders";
  static final String SKEW_DIMENSION = "skewdim";
  static final List<String> TABLES = List.of(LINEITEM, ORDERS, SKEW_DIMENSION);

  /** Orders at scale factor 1, as in TPC-H; lineitem has about four times as many rows. */
  static final long ORDERS_PER_SCALE = 1_500_000L;

  private TableLayout() {}

  static long orderCount(double scale) {
    return Math.max(1_000L, Math.round(ORDERS_PER_SCALE * scale));
  }

  static DataLocation directory(DataLocation dataRoot, double scale, long seed) {
    return dataRoot.child("sf-" + ScaleFactor.format(scale) + "-seed-" + seed);
  }

  /** Whether every table was written completely: Spark's commit marker in each. */
  static boolean complete(DataLocation dir, Predicate<DataLocation> exists) {
    return TABLES.stream().allMatch(t -> exists.test(dir.child(t).child("_SUCCESS")));
  }

  /**
   * How many generator tasks (and Parquet files per table) a scale factor gets: 8 per SF, at least
   * 4 so that even the smoke size has several map tasks to split a skewed partition by.
   */
  static int generatorPartitions(double scale) {
    return (int) Math.max(4, Math.ceil(scale * 8));
  }
}
