package io.sluice.client.spark.read;

/**
 * The unique key of a block: its id keeps only the low bits of the task attempt id (see
 * {@code BlockIdLayout}), so two attempts can write blocks with the same id.
 */
record BlockKey(long taskAttemptId, long blockId) {}
