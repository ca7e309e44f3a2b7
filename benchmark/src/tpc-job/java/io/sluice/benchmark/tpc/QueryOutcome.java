package io.sluice.benchmark.tpc;

/**
 * A query's answer in a form both modes can be compared by: the number of result rows and a
 * checksum of their content that does not depend on the order in which partitions finish.
 * {@code note} says something a reader of the report should know about this run (e.g. whether AQE
 * split a skewed partition), or is empty.
 */
record QueryOutcome(long rows, long checksum, String note) {
  String answer() {
    return rows + " rows, checksum " + Long.toHexString(checksum);
  }
}
