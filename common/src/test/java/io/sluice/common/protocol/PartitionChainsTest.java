package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PartitionChainsTest {

  @Test
  void chainsListedPerPartitionComeBackFromTheirRuns() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      int partitions = 1 + random.nextInt(60);
      int copies = 1 + random.nextInt(3);
      int servers = copies + random.nextInt(4);
      int[][] chains = new int[partitions][copies];
      for (int[] chain : chains) {
        for (int c = 0; c < copies; c++) {
          chain[c] = random.nextInt(servers);
        }
      }
      PartitionChains layout = PartitionChains.ofChains(chains);
      for (int p = 0; p < partitions; p++) {
        assertArrayEquals(chains[p], layout.chain(p), "partition " + p);
      }
      assertEquals(layout, roundTrip(layout, servers));
    }
  }

  @Test
  void aRotatingLayoutOfManyPartitionsTakesARunPerServerAndColumn() {
    int partitions = Integer.MAX_VALUE;
    int half = partitions / 2;
    // Column 0: server 0 then 1; column 1: server 1 then 2. Partition p's copy c is in column
    // (p + c) mod 2, so primaries alternate between the columns.
    PartitionChains layout =
        PartitionChains.ofColumns(
            partitions,
            new int[][] {{half, partitions}, {half, partitions}},
            new int[][] {{0, 1}, {1, 2}});

    assertArrayEquals(new int[] {0, 1}, layout.chain(0));
    assertArrayEquals(new int[] {1, 0}, layout.chain(1));
    assertArrayEquals(new int[] {1, 0}, layout.chain(half - 2));
    assertArrayEquals(new int[] {1, 2}, layout.chain(half + 1));
    assertArrayEquals(new int[] {1, 2}, layout.chain(partitions - 1));
    assertEquals(4 + 2 + 2 * (4 + 2 * 8), layout.encodedLength());
    assertArrayEquals(new long[] {half, partitions, partitions - half}, layout.copiesPerServer(3));
    assertArrayEquals(new int[] {2, 9}, layout.renumber(new int[] {9, 2, 1}).chain(half - 2));
  }

  @Test
  void inconsistentColumnsAreRefused() {
    for (int[][][] bad :
        new int[][][][] {
          {{{5}, {5}}, {{0}}}, // a server list per column
          {{{3}}, {{0}}}, // runs stop before the last partition
          {{{3, 3, 5}}, {{0, 1, 2}}}, // ends do not rise
          {{{6}}, {{0}}}, // beyond the last partition
          {{{5}}, {{-1}}}
        }) { // negative server
      assertThrows(
          IllegalArgumentException.class, () -> PartitionChains.ofColumns(5, bad[0], bad[1]));
    }
    assertThrows(
        IllegalArgumentException.class, () -> PartitionChains.ofChains(new int[][] {{0, 1}, {1}}));
  }

  @Test
  void aDecodedLayoutNamingAnUnlistedServerIsACorruptFrame() {
    PartitionChains layout =
        PartitionChains.ofColumns(10, new int[][] {{4, 10}}, new int[][] {{0, 3}});
    ByteBuf buf = Unpooled.buffer();
    layout.encode(buf);
    CorruptFrameException e =
        assertThrows(CorruptFrameException.class, () -> PartitionChains.decode(buf, 3));
    assertTrue(e.getMessage().contains("server index 3 of 3"), e.getMessage());
    buf.release();
  }

  private static PartitionChains roundTrip(PartitionChains layout, int servers) {
    ByteBuf buf = Unpooled.buffer();
    try {
      layout.encode(buf);
      assertEquals(layout.encodedLength(), buf.readableBytes());
      return PartitionChains.decode(buf, servers);
    } finally {
      buf.release();
    }
  }
}
