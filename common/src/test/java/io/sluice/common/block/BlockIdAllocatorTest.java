package io.sluice.common.block;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BlockIdAllocatorTest {

  @Test
  void eachPartitionCountsItsOwnBlocksFromZero() {
    BlockIdLayout layout = BlockIdLayout.DEFAULT;
    BlockIdAllocator allocator = new BlockIdAllocator(layout, 8, 4242);
    for (int expected = 0; expected < 3; expected++) {
      long id = allocator.next(3);
      assertEquals(expected, layout.sequence(id));
      assertEquals(3, layout.partitionId(id));
      assertTrue(layout.matchesTaskAttempt(id, 4242));
    }
    assertEquals(0, layout.sequence(allocator.next(5)));
    assertEquals(3, allocator.blockCount(3));
    assertEquals(1, allocator.blockCount(5));
    assertEquals(0, allocator.blockCount(0));
    assertEquals(4242, allocator.taskAttemptId());
  }

  @Test
  void exhaustedPartitionThrowsEveryTimeWithoutCounting() {
    BlockIdLayout layout = new BlockIdLayout(1, 30, 32);
    BlockIdAllocator allocator = new BlockIdAllocator(layout, 2, 1);
    allocator.next(1);
    allocator.next(1);
    assertThrows(BlockIdOverflowException.class, () -> allocator.next(1));
    assertThrows(BlockIdOverflowException.class, () -> allocator.next(1));
    assertEquals(2, allocator.blockCount(1));
    assertEquals(0, layout.sequence(allocator.next(0)), "other partitions are unaffected");
  }

  @Test
  void rejectsShufflesAndPartitionsThatDoNotFit() {
    BlockIdLayout layout = new BlockIdLayout(30, 4, 29);
    assertThrows(BlockIdOverflowException.class, () -> new BlockIdAllocator(layout, 17, 0));
    assertThrows(IllegalArgumentException.class, () -> new BlockIdAllocator(layout, 4, -1));
    BlockIdAllocator allocator = new BlockIdAllocator(layout, 16, 0);
    assertThrows(IndexOutOfBoundsException.class, () -> allocator.next(16));
    assertThrows(IndexOutOfBoundsException.class, () -> allocator.next(-1));
  }
}
