package io.sluice.benchmark.tpc;

/** One benchmark query: runs to completion in the calling Spark driver and returns its answer. */
interface TpcQuery {
  /** Its name and description. */
  QuerySpec spec();

  QueryOutcome run(QueryInputs in);
}
