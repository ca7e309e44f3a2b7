package io.sluice.client.core;

/**
 * What identifies a block within one partition of a shuffle: the map attempt that wrote it and its
 * number among that attempt's blocks of the partition.
 */
public record BlockKey(long taskAttemptId, int sequence) {}
