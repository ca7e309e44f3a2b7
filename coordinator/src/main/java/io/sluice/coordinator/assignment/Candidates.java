package io.sluice.coordinator.assignment;

/**
 * The servers of a snapshot that qualify for one request, with their weight: free push memory
 * divided by {@code 1 + partitions / loadHalfPartitions}, partitions held and pending counted.
 * Indexes are snapshot indexes; a server that does not qualify (it lacks a requested tag) has a
 * negative weight.
 */
final class Candidates {
  final CandidateSnapshot snapshot;
  final double[] weights;
  final int size;

  Candidates(CandidateSnapshot snapshot, double[] weights, int size) {
    this.snapshot = snapshot;
    this.weights = weights;
    this.size = size;
  }

  /** Number of snapshot servers, qualifying or not. */
  int length() {
    return snapshot.size();
  }

  boolean qualifies(int i) {
    return weights[i] >= 0;
  }

  /** Whether {@code a} is preferred to {@code b}: heavier, or as heavy with a smaller id. */
  boolean better(int a, int b) {
    int c = Double.compare(weights[a], weights[b]);
    return c != 0 ? c > 0 : snapshot.ids[a].compareTo(snapshot.ids[b]) < 0;
  }

  int compare(int a, int b) {
    return a == b ? 0 : better(a, b) ? -1 : 1;
  }

  int host(int i) {
    return snapshot.hosts[i];
  }
}
