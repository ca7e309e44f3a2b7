package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.client.core.push.PushSettings;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportOptions;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No answer of a server is larger than its maximum frame size, whatever a reader asks for, and an
 * index of any number of blocks can still be read (in pages).
 */
class AnswerFrameLimitTest {
  private static final int MAX_FRAME = 256 * 1024;
  private static final int BLOCK = 60 * 1024;
  private static final int BLOCKS = 8;
  private static final String APP = "app-frame-limit";

  @TempDir Path dir;

  private static void pushBlocks(ServerTestClient client) throws Exception {
    client.registerApp(APP);
    client.registerShuffle(APP, 0, 1);
    Random random = new Random(3);
    for (int i = 0; i < BLOCKS; i++) {
      byte[] data = new byte[BLOCK];
      random.nextBytes(data);
      client.pushRaw(
          APP,
          0,
          List.of(),
          List.of(new BlockDescriptor(0, 1L, i, BLOCK, BLOCK, Crc32c.of(data))),
          data);
    }
  }

  @Test
  void memoryReadsAreCutToTheFrame() throws Exception {
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(
                    dir,
                    Map.of(TransportOptions.MAX_FRAME_SIZE.key(), String.valueOf(MAX_FRAME))));
        ServerTestClient client = new ServerTestClient(server)) {
      pushBlocks(client);

      // The reader asks for 16 MiB at once; each answer stays within the server's 256 KiB frames.
      long after = FetchMemoryDataRequest.FROM_START;
      int blocksRead = 0;
      boolean more = true;
      int pages = 0;
      while (more) {
        FetchMemoryDataResponse page =
            client.send(
                new FetchMemoryDataRequest(
                    TransportClient.nextRequestId(), APP, 0, 0, after, 16 << 20, new long[0]),
                FetchMemoryDataResponse.class);
        try {
          long frame = 1 + page.encodedLength() + page.body().size();
          assertTrue(frame <= MAX_FRAME, "an answer of " + frame + " bytes");
          blocksRead += page.blocks().size();
          after = page.lastSequence();
          more = page.hasMore();
          pages++;
        } finally {
          ServerTestClient.release(page);
        }
      }
      assertEquals(BLOCKS, blocksRead);
      assertTrue(pages >= 2, "cut into pages: " + pages);
    }
  }

  @Test
  void dataRangesTooLargeForAFrameAreRefusedForGood() throws Exception {
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(
                    dir,
                    Map.of(
                        TransportOptions.MAX_FRAME_SIZE.key(),
                        String.valueOf(MAX_FRAME),
                        ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                        "64k")));
        ServerTestClient client = new ServerTestClient(server)) {
      pushBlocks(client);
      int tooLarge = 5 * BLOCK;
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (client.dataOnDisk(APP, 0, 0) < tooLarge) {
        assertTrue(System.nanoTime() < deadline, "flushes did not write 5 blocks in a minute");
        Thread.sleep(10);
      }
      RemoteException refused =
          assertThrows(
              RemoteException.class,
              () ->
                  client.send(
                      new FetchDataRequest(TransportClient.nextRequestId(), APP, 0, 0, 0, tooLarge),
                      FetchDataResponse.class));
      assertEquals(StatusCode.INVALID_REQUEST, refused.status());
      assertTrue(
          refused.getMessage().contains(TransportOptions.MAX_FRAME_SIZE.key()),
          refused.getMessage());
      FetchDataResponse within =
          client.send(
              new FetchDataRequest(TransportClient.nextRequestId(), APP, 0, 0, 0, 2 * BLOCK),
              FetchDataResponse.class);
      try {
        assertEquals(2 * BLOCK, within.body().size());
      } finally {
        ServerTestClient.release(within);
      }
    }
  }

  @Test
  void anIndexOfMoreEntriesThanAFrameHoldsIsReadInPages() throws Exception {
    int blocks = 12_000;
    int entriesPerFrame = MAX_FRAME / IndexEntry.SIZE;
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(
                    dir,
                    Map.of(
                        TransportOptions.MAX_FRAME_SIZE.key(),
                        String.valueOf(MAX_FRAME),
                        ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
                        "64k")));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 1);
      // Pushes of 1,000 small blocks: their descriptors, not their bytes, fill the frames.
      MapOutputPusher pusher =
          client.pusher(
              APP,
              0,
              ServerTestClient.locations(1, client.server()),
              1L,
              new PushSettings(48_000, 96_000, ServerTestClient.BACKOFF, 0));
      Map<BlockKey, byte[]> pushed = new HashMap<>();
      Random random = new Random(5);
      for (int i = 0; i < blocks; i++) {
        byte[] data = new byte[48];
        random.nextBytes(data);
        pushed.put(ServerTestClient.add(pusher, 1L, 0, data), data);
      }
      pusher.finish();
      pusher.commit(0);
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (entriesOnDiskFrom(client, entriesPerFrame + 1000) == 0) {
        assertTrue(
            System.nanoTime() < deadline,
            "flushes did not write " + (entriesPerFrame + 1000) + " blocks in a minute");
        Thread.sleep(10);
      }

      RemoteException whole =
          assertThrows(
              RemoteException.class,
              () -> client.dataOnDisk(APP, 0, 0),
              "a reader before protocol 5 asks for the whole index, which no frame holds");
      assertEquals(StatusCode.INVALID_REQUEST, whole.status());

      Map<BlockKey, byte[]> read = client.readPartition(APP, 0, 0, 1L);
      assertEquals(blocks, read.size());
      for (Map.Entry<BlockKey, byte[]> e : pushed.entrySet()) {
        assertArrayEquals(e.getValue(), read.get(e.getKey()), e.getKey().toString());
      }
    }
  }

  /** Entries of the partition's index from entry {@code from} on, in one small page: 0 or 1. */
  private static int entriesOnDiskFrom(ServerTestClient client, int from) throws Exception {
    FetchIndexPageResponse page =
        client.send(
            new FetchIndexPageRequest(
                TransportClient.nextRequestId(), APP, 0, 0, from, IndexEntry.SIZE),
            FetchIndexPageResponse.class);
    try {
      return (int) (page.body().size() / IndexEntry.SIZE);
    } finally {
      ServerTestClient.release(page);
    }
  }
}
