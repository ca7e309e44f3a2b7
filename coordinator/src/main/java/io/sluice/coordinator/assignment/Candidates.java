package io.sluice.coordinator.assignment;

import io.sluice.coordinator.registry.ServerRecord;

/**
 * The servers that qualify for one request, with what the choice needs: their weight (free push memory
 * discounted by partitions held and pending), id (to break ties the same way on every coordinator)
 * and host. Indexes are positions in these arrays.
 */
final class Candidates {
  final ServerRecord[] records;
  final String[] ids;
  final double[] weights;
  final int[] hosts;
  final int hostCount;
  final int size;

  Candidates(ServerRecord[] records, String[] ids, double[] weights, int[] hosts, int hostCount,
      int size) {
    this.records = records;
    this.ids = ids;
    this.weights = weights;
    this.hosts = hosts;
    this.hostCount = hostCount;
    this.size = size;
  }

  /** Whether candidate {@code a} is preferred to {@code b}: heavier, or as heavy with a smaller id. */
  boolean better(int a, int b) {
    int c = Double.compare(weights[a], weights[b]);
    return c != 0 ? c > 0 : ids[a].compareTo(ids[b]) < 0;
  }

  int compare(int a, int b) {
    return a == b ? 0 : better(a, b) ? -1 : 1;
  }
}
