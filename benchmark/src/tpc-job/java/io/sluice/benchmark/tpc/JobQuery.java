package io.sluice.benchmark.tpc;

import java.util.concurrent.Callable;

/** A query as the job runs it: its name, what it does, and the run that returns its answer. */
record JobQuery(String label, String description, Callable<QueryOutcome> run) {}
