package io.sluice.benchmark.tpc;

/** One benchmark query: runs to completion in the calling Spark driver and returns its answer. */
interface TpcQuery {
  /** A short lower-case name used on the command line and in reports. */
  String name();

  /** One line for the report: what the query does and what it shuffles. */
  String description();

  QueryOutcome run(QueryInputs in);
}
