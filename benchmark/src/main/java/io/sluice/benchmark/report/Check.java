package io.sluice.benchmark.report;

/**
 * A target of a benchmark and whether the run met it.
 *
 * @param target what was to hold, with its bound
 * @param measured what the run measured
 * @param met whether it held
 */
public record Check(String target, String measured, boolean met) {}
