package io.sluice.benchmark.server;

import io.sluice.client.core.read.FetchedBlock;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The benchmark's own check of what the readers got, beside the reader's (which checks CRC32C and
 * the committed counts): every block must be one that was acknowledged, come once, and hold exactly
 * the bytes its identity gives in the {@link RandomPayload}; once reading is over, every
 * acknowledged block must have come. Readers of different partitions call it concurrently.
 */
final class ReadCheck {
  private static final int KEPT_PROBLEMS = 10;

  private final RandomPayload payload;
  private final int shuffleId;

  /** Blocks acknowledged, by map attempt (the client's index) and partition. */
  private final int[][] acknowledged;

  /** Blocks read, by partition and attempt: each partition's row is guarded by itself. */
  private final BitSet[][] read;

  private final LongAdder blocks = new LongAdder();
  private final LongAdder bytes = new LongAdder();
  private final LongAdder problemCount = new LongAdder();
  private final List<String> problems = new ArrayList<>();

  ReadCheck(RandomPayload payload, int shuffleId, int[][] acknowledged, int partitions) {
    this.payload = payload;
    this.shuffleId = shuffleId;
    this.acknowledged = acknowledged;
    this.read = new BitSet[partitions][acknowledged.length];
    for (BitSet[] row : read) {
      for (int a = 0; a < row.length; a++) {
        row[a] = new BitSet();
      }
    }
  }

  void verify(FetchedBlock b) {
    int p = b.partition();
    long a = b.taskAttemptId();
    if (p < 0
        || p >= read.length
        || a < 0
        || a >= acknowledged.length
        || b.sequence() >= acknowledged[(int) a][p]) {
      problem(b + " was never acknowledged");
    } else if (b.uncompressedLength() != b.length()
        || !payload.matches(b.data(), shuffleId, a, p, b.sequence())) {
      problem(b + " does not hold the bytes that were pushed");
    } else {
      synchronized (read[p]) {
        if (read[p][(int) a].get(b.sequence())) {
          problem(b + " was read twice");
          return;
        }
        read[p][(int) a].set(b.sequence());
      }
      blocks.increment();
      bytes.add(b.length());
    }
  }

  /** Records that a reader gave up (lost or corrupt blocks the reader itself found). */
  void failed(Exception e) {
    problem(e.getMessage());
  }

  /** Once every reader is done: records every acknowledged block that was not read. */
  void checkComplete() {
    for (int p = 0; p < read.length; p++) {
      for (int a = 0; a < acknowledged.length; a++) {
        int missing = acknowledged[a][p] - read[p][a].cardinality();
        if (missing > 0) {
          problem(
              missing
                  + " of the "
                  + acknowledged[a][p]
                  + " blocks map attempt "
                  + a
                  + " wrote to partition "
                  + p
                  + " were acknowledged but not read back");
        }
      }
    }
  }

  RunResult.ReadSummary summary() {
    synchronized (problems) {
      return new RunResult.ReadSummary(
          blocks.sum(), bytes.sum(), problemCount.sum(), List.copyOf(problems));
    }
  }

  private void problem(String description) {
    problemCount.increment();
    synchronized (problems) {
      if (problems.size() < KEPT_PROBLEMS) {
        problems.add(description);
      }
    }
  }
}
