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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A push that needs more partition state than the server's bookkeeping budget
 * ({@code heap.commit.pairs}) holds is refused with REFUSED naming the key, and nothing of it is
 * kept: its blocks go back to the push pool.
 */
class BookkeepingBudgetTest {
  private static final String APP = "app-bookkeeping";

  @TempDir Path dir;

  @Test
  void aPushBeyondTheBudgetIsRefusedAndKeepsNothing() throws Exception {
    // 1,000 pairs x 1.5 bytes: room for three partitions' states of 400 bytes.
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of(
            ServerOptions.HEAP_COMMIT_PAIRS.key(), "1000")));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 10);
      byte[] data = new byte[100];
      int crc = Crc32c.of(Unpooled.wrappedBuffer(data));
      client.pushRaw(APP, 0, List.of(), List.of(new BlockDescriptor(0, 1L, 0, 100, 100, crc)),
          data);
      RemoteException refused = assertThrows(RemoteException.class, () -> client.pushRaw(APP, 0,
          List.of(), List.of(new BlockDescriptor(1, 1L, 0, 100, 100, crc),
              new BlockDescriptor(2, 1L, 0, 100, 100, crc),
              new BlockDescriptor(3, 1L, 0, 100, 100, crc),
              new BlockDescriptor(4, 1L, 0, 100, 100, crc)), data, data, data, data));
      assertEquals(StatusCode.REFUSED, refused.status());
      assertTrue(refused.getMessage().contains(ServerOptions.HEAP_COMMIT_PAIRS.key()),
          refused.getMessage());
      assertTrue(server.store().commitHeapBytes() <= 1_500);
      client.unregisterApp(APP);
      assertEquals(0, server.store().commitHeapBytes());
      assertEquals(0, server.pushPool().allocatedBytes(), "no block of the refused push was kept");
    }
  }
}
