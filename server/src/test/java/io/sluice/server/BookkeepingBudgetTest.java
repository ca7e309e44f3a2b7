package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.transport.RemoteException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A push that needs more partition state than the server's bookkeeping budget ({@code
 * heap.commit.pairs}) holds is refused with REFUSED naming the key, and nothing of it is kept: its
 * blocks go back to the push pool.
 */
class BookkeepingBudgetTest {
  private static final String APP = "app-bookkeeping";

  @TempDir Path dir;

  @Test
  void aPushBeyondTheBudgetIsRefusedAndKeepsNothing() throws Exception {
    // The least budget, 1 M pairs x 1.5 bytes: room for 3,750 partitions' states of 400 bytes.
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(dir, Map.of(ServerOptions.HEAP_COMMIT_PAIRS.key(), "1000000")));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 5_000);
      byte[] data = new byte[16];
      int crc = Crc32c.of(Unpooled.wrappedBuffer(data));
      client.pushRaw(APP, 0, List.of(), List.of(new BlockDescriptor(0, 1L, 0, 16, 16, crc)), data);
      List<BlockDescriptor> blocks = new ArrayList<>();
      byte[][] bodies = new byte[4_999][];
      for (int p = 1; p < 5_000; p++) {
        blocks.add(new BlockDescriptor(p, 1L, 0, 16, 16, crc));
        bodies[p - 1] = data;
      }
      RemoteException refused =
          assertThrows(
              RemoteException.class, () -> client.pushRaw(APP, 0, List.of(), blocks, bodies));
      assertEquals(StatusCode.REFUSED, refused.status());
      assertTrue(
          refused.getMessage().contains(ServerOptions.HEAP_COMMIT_PAIRS.key()),
          refused.getMessage());
      assertTrue(server.store().commitHeapBytes() <= 1_500_000);
      client.unregisterApp(APP);
      assertEquals(0, server.store().commitHeapBytes());
      assertEquals(0, server.pushPool().allocatedBytes(), "no block of the refused push was kept");
    }
  }
}
