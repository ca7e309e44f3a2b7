package io.sluice.benchmark.tpc;

import java.util.List;

/**
 * A query's answer in a form both modes can be compared by: the number of result rows and a
 * checksum of their content that does not depend on the order in which partitions finish. {@code
 * note} says something a reader of the report should know about this run (e.g. whether AQE split a
 * skewed partition), or is empty.
 */
record QueryOutcome(long rows, long checksum, String note) {
  /** The outcome of an RDD query whose partitions each summed up {count, checksum}. */
  static QueryOutcome ofPartitions(List<long[]> parts, String note) {
    long rows = 0;
    long checksum = 0;
    for (long[] p : parts) {
      rows += p[0];
      checksum += p[1];
    }
    return new QueryOutcome(rows, checksum, note);
  }

  String answer() {
    return rows + " rows, checksum " + Long.toHexString(checksum);
  }
}
