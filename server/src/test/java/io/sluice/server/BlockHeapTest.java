package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import io.sluice.server.shuffle.ShuffleState;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a block held in the push pool costs on the server's heap (its descriptor, its slice of the
 * pool, its place in its partition): the figure {@code bin/start-server.sh} sizes the heap with
 * ({@link ServerJvmOptions#HEAP_BYTES_PER_BLOCK}, for {@code heap.blocks.in.memory} blocks); and
 * what a partition's state costs, which the bookkeeping budget charges it.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BlockHeapTest {
  private static final int BLOCKS = 200_000;
  private static final int PER_PUSH = 2_000;
  private static final int PARTITIONS = 100;

  @TempDir Path dir;

  @Test
  void aPartitionTakesNoMoreHeapThanItsBookkeepingCharge() throws Exception {
    int partitions = 200_000;
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp("app");
      client.registerShuffle("app", 0, partitions);
      long before = CommitScaleTest.heapAfterGc(memory);
      int[] ids = new int[partitions];
      int[] counts = new int[partitions];
      for (int p = 0; p < partitions; p++) {
        ids[p] = p;
        counts[p] = 1;
      }
      // One map attempt commits a block to every partition: each gets its state and its count.
      client.send(
          new CommitMapOutputRequest(TransportClient.nextRequestId(), "app", 0, 0, 1L, ids, counts),
          StatusResponse.class);
      long grown = CommitScaleTest.heapAfterGc(memory) - before;
      System.out.printf(
          "%,d partitions with a commit each: heap grew %,d bytes (%.1f per " + "partition)%n",
          partitions, grown, grown / (double) partitions);
      assertTrue(
          grown <= (long) partitions * ShuffleState.PARTITION_HEAP_BYTES,
          "heap grew by "
              + grown
              + " bytes for "
              + partitions
              + " partitions, more than the "
              + ShuffleState.PARTITION_HEAP_BYTES
              + " each the bookkeeping budget charges");
      assertTrue(
          server.store().commitHeapBytes() >= (long) partitions * ShuffleState.PARTITION_HEAP_BYTES,
          "every partition was charged");
      client.unregisterApp("app");
      assertEquals(0, server.store().commitHeapBytes());
    }
  }

  @Test
  void aBlockInMemoryTakesNoMoreHeapThanTheStartScriptSizesFor() throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp("app");
      client.registerShuffle("app", 0, PARTITIONS);
      long before = CommitScaleTest.heapAfterGc(memory);

      byte[] bytes = new byte[16];
      int crc = Crc32c.of(Unpooled.wrappedBuffer(bytes));
      int[] sequences = new int[PARTITIONS];
      for (int pushed = 0; pushed < BLOCKS; pushed += PER_PUSH) {
        List<BlockDescriptor> blocks = new ArrayList<>();
        byte[][] data = new byte[PER_PUSH][];
        for (int i = 0; i < PER_PUSH; i++) {
          int p = (pushed + i) % PARTITIONS;
          blocks.add(new BlockDescriptor(p, 1L, sequences[p]++, bytes.length, bytes.length, crc));
          data[i] = bytes;
        }
        client.pushRaw("app", 0, List.of(), blocks, data);
      }
      long grown = CommitScaleTest.heapAfterGc(memory) - before;
      long inMemory = server.store().shuffle("app", 0).existingPartition(0).memoryBytes();
      System.out.printf(
          "%,d blocks in memory: heap grew %,d bytes (%.1f per block)%n",
          BLOCKS, grown, grown / (double) BLOCKS);
      assertTrue(
          inMemory == (long) BLOCKS / PARTITIONS * bytes.length,
          "the blocks stayed in memory: " + inMemory + " bytes of partition 0");
      assertTrue(
          grown <= (long) BLOCKS * ServerJvmOptions.HEAP_BYTES_PER_BLOCK,
          "heap grew by "
              + grown
              + " bytes for "
              + BLOCKS
              + " blocks, more than "
              + ServerJvmOptions.HEAP_BYTES_PER_BLOCK
              + " per block");
      client.unregisterApp("app");
    }
  }
}
