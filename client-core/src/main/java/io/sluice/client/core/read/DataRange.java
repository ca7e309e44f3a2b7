package io.sluice.client.core.read;

import io.sluice.common.shuffle.IndexEntry;
import java.util.List;

/**
 * A run of blocks close together in a partition's data, read with one request (or more, when the
 * server answers a read short).
 *
 * @param offset where the first block starts
 * @param length bytes from the first block's start to the last one's end
 * @param blocks the blocks in offset order; each starts at or after the previous one's end, and the
 *     bytes between them are dropped
 */
record DataRange(long offset, int length, List<IndexEntry> blocks) {
  DataRange {
    blocks = List.copyOf(blocks);
  }
}
