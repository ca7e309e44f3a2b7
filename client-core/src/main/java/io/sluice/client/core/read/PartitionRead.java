package io.sluice.client.core.read;

import io.sluice.client.core.read.PartitionReader.PartitionSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The reading of one partition across its locations: which blocks it still expects, which servers
 * were read completely for it, and what could not be read. Touched on the reader's runner only.
 */
final class PartitionRead {
  final PartitionSource source;
  final ExpectedBlocks expected;

  /** Servers read completely for this partition: they hold every block of it they have. */
  final Set<String> readServers = new HashSet<>();

  final List<String> unreadable = new ArrayList<>();
  final List<String> serverFailures = new ArrayList<>();

  /** Its locations' readers, in the order they started. */
  final List<LocationReader> reads = new ArrayList<>();

  int nextLocation;
  int activeLocations;

  /** Every location's metadata was read (or given up on). */
  boolean metadataDone;

  boolean done;

  PartitionRead(PartitionSource source) {
    this.source = source;
    this.expected = new ExpectedBlocks(source.attempts());
  }

  int id() {
    return source.partition();
  }
}
