package io.sluice.common.shuffle.read;

import io.sluice.common.shuffle.IndexEntry;
import java.util.List;

/**
 * A run of blocks that lie back to back in a partition's data, read with one request (or more, when
 * the server answers a read short).
 *
 * @param offset where the first block starts
 * @param length total bytes of the blocks
 * @param blocks the blocks in offset order; each starts where the previous one ends
 */
record DataRange(long offset, int length, List<IndexEntry> blocks) {
  DataRange {
    blocks = List.copyOf(blocks);
  }
}
