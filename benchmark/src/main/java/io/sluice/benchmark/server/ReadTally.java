package io.sluice.benchmark.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/** What the readers found, summed over all of them: blocks verified, where from, and problems. */
final class ReadTally {
  private static final int KEPT_PROBLEMS = 10;

  final LongAdder verifiedBlocks = new LongAdder();
  final LongAdder verifiedBytes = new LongAdder();
  final LongAdder fromMemory = new LongAdder();
  final LongAdder fromDisk = new LongAdder();
  /** Blocks seen a second time (in memory, then on disk after a flush): dropped by id. */
  final LongAdder duplicates = new LongAdder();
  final LongAdder busyRetries = new LongAdder();
  private final LongAdder problemCount = new LongAdder();
  private final List<String> problems = new ArrayList<>();

  /** Records a lost, corrupt, misplaced or unknown block (the first few are kept verbatim). */
  void problem(String description) {
    problemCount.increment();
    synchronized (problems) {
      if (problems.size() < KEPT_PROBLEMS) {
        problems.add(description);
      }
    }
  }

  long problemCount() {
    return problemCount.sum();
  }

  List<String> firstProblems() {
    synchronized (problems) {
      return List.copyOf(problems);
    }
  }
}
