package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.transport.IoMode;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportOptions;
import io.sluice.fixtures.Await;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Large pushes are read by the socket straight into the push pool (the blocks' buffers taken once
 * the header arrived), with either transport; what arrives is what was sent, checked against each
 * block's CRC32C; and a push that never arrives whole gives its blocks back.
 */
class ReceiveInPlaceTest {
  private static final String APP = "app-in-place";
  private static final int BLOCK = 256 * 1024;
  private static final int BLOCKS_PER_PUSH = 8;
  private static final int PARTITIONS = 4;
  private static final String IN_PLACE = "sluice_server_push_bytes_received_in_place_total";

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(
      value = IoMode.class,
      names = {"EPOLL", "NIO"})
  void largePushesAreReceivedIntoThePoolAndReadBackIntact(IoMode mode) throws Exception {
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(dir, Map.of(TransportOptions.IO_MODE.key(), mode.name())));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, PARTITIONS);
      Random random = new Random(11);
      List<List<byte[]>> sent = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        sent.add(new ArrayList<>());
      }
      int pushes = 8;
      for (int push = 0; push < pushes; push++) {
        List<BlockDescriptor> blocks = new ArrayList<>();
        byte[][] data = new byte[BLOCKS_PER_PUSH][];
        for (int b = 0; b < BLOCKS_PER_PUSH; b++) {
          // Lengths that are no multiple of a page or of a read.
          data[b] = new byte[BLOCK - random.nextInt(5000)];
          random.nextBytes(data[b]);
          int partition = b % PARTITIONS;
          blocks.add(
              new BlockDescriptor(
                  partition,
                  1L,
                  push * BLOCKS_PER_PUSH + b,
                  data[b].length,
                  data[b].length,
                  Crc32c.of(data[b])));
          sent.get(partition).add(data[b]);
        }
        client.pushRaw(APP, 0, List.of(), blocks, data);
      }

      long pushed = sent.stream().flatMap(List::stream).mapToLong(d -> d.length).sum();
      double inPlace = server.metrics().registry().getSampleValue(IN_PLACE);
      // A push whose header came split over two reads is received as before; on loopback, where
      // each push starts a read of its own, that is rare.
      assertTrue(
          inPlace >= pushed / 2.0, inPlace + " of " + pushed + " bytes were received in place");
      for (int p = 0; p < PARTITIONS; p++) {
        FetchMemoryDataResponse memory =
            client.send(
                new FetchMemoryDataRequest(
                    TransportClient.nextRequestId(),
                    APP,
                    0,
                    p,
                    FetchMemoryDataRequest.FROM_START,
                    16 << 20,
                    new long[0]),
                FetchMemoryDataResponse.class);
        try {
          ByteBuf body = ((NettyManagedBuffer) memory.body()).byteBuf();
          assertEquals(sent.get(p).size(), memory.blocks().size(), "blocks of partition " + p);
          for (byte[] expected : sent.get(p)) {
            assertArrayEquals(expected, ByteBufUtil.getBytes(body.readSlice(expected.length)));
          }
        } finally {
          memory.release();
        }
      }
      client.unregisterApp(APP);
      Await.until(
          () -> server.pushPool().allocatedBytes() == 0,
          () -> server.pushPool().allocatedBytes() + " bytes of blocks left in the pool");
    }
  }

  /**
   * Small blocks share slabs, which several event loops write at once: each read must go to its own
   * block, whichever transport reads it.
   */
  @ParameterizedTest
  @EnumSource(
      value = IoMode.class,
      names = {"EPOLL", "NIO"})
  void smallBlocksOfConnectionsPushingAtOnceAreReceivedIntact(IoMode mode) throws Exception {
    int writers = 4;
    int pushes = 30;
    int blocksPerPush = 16;
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(dir, Map.of(TransportOptions.IO_MODE.key(), mode.name())));
        ServerTestClient admin = new ServerTestClient(server)) {
      admin.registerApp(APP);
      admin.registerShuffle(APP, 0, writers);
      List<CompletableFuture<List<byte[]>>> sent = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int partition = w;
        sent.add(
            CompletableFuture.supplyAsync(
                () -> {
                  List<byte[]> blocks = new ArrayList<>();
                  try (ServerTestClient writer = new ServerTestClient(server)) {
                    Random random = new Random(partition);
                    for (int push = 0; push < pushes; push++) {
                      List<BlockDescriptor> descriptors = new ArrayList<>();
                      byte[][] data = new byte[blocksPerPush][];
                      for (int b = 0; b < blocksPerPush; b++) {
                        data[b] = new byte[4096 + random.nextInt(12_000)];
                        random.nextBytes(data[b]);
                        descriptors.add(
                            new BlockDescriptor(
                                partition,
                                1L + partition,
                                push * blocksPerPush + b,
                                data[b].length,
                                data[b].length,
                                Crc32c.of(data[b])));
                        blocks.add(data[b]);
                      }
                      writer.pushRaw(APP, 0, List.of(), descriptors, data);
                    }
                  } catch (Exception e) {
                    throw new CompletionException(e);
                  }
                  return blocks;
                }));
      }
      for (int p = 0; p < writers; p++) {
        List<byte[]> expected = sent.get(p).get(120, TimeUnit.SECONDS);
        FetchMemoryDataResponse memory =
            admin.send(
                new FetchMemoryDataRequest(
                    TransportClient.nextRequestId(),
                    APP,
                    0,
                    p,
                    FetchMemoryDataRequest.FROM_START,
                    16 << 20,
                    new long[0]),
                FetchMemoryDataResponse.class);
        try {
          ByteBuf body = ((NettyManagedBuffer) memory.body()).byteBuf();
          assertEquals(expected.size(), memory.blocks().size(), "blocks of partition " + p);
          for (byte[] block : expected) {
            assertArrayEquals(block, ByteBufUtil.getBytes(body.readSlice(block.length)));
          }
        } finally {
          memory.release();
        }
      }
      assertTrue(server.metrics().registry().getSampleValue(IN_PLACE) > 0);
    }
  }

  @Test
  void aCorruptBlockReceivedInPlaceIsRefusedAndNothingOfItsPushIsKept() throws Exception {
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 1);
      byte[] good = new byte[BLOCK];
      byte[] bad = new byte[BLOCK];
      new Random(3).nextBytes(good);
      new Random(4).nextBytes(bad);
      RemoteException refused =
          assertThrows(
              RemoteException.class,
              () ->
                  client.pushRaw(
                      APP,
                      0,
                      List.of(),
                      List.of(
                          new BlockDescriptor(0, 1L, 0, BLOCK, BLOCK, Crc32c.of(good)),
                          new BlockDescriptor(0, 1L, 1, BLOCK, BLOCK, Crc32c.of(good))),
                      good,
                      bad));
      assertEquals(StatusCode.CORRUPT_BLOCK, refused.status());
      assertEquals(0, server.pushPool().allocatedBytes(), "nothing of the push is kept");
      assertEquals(0.0, server.metrics().registry().getSampleValue(IN_PLACE));
    }
  }

  @Test
  void aPushThatNeverArrivesWholeGivesItsBlocksBack() throws Exception {
    try (ShuffleServer server =
            new ShuffleServer(
                TestServers.conf(dir, Map.of(TransportOptions.FRAME_TIMEOUT.key(), "1s")));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 1);
      byte[] handshake =
          ServerTestClient.encode(
              new HandshakeRequest(
                  1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "stalls"));
      byte[] data = new byte[4 * BLOCK];
      new Random(5).nextBytes(data);
      List<BlockDescriptor> blocks = new ArrayList<>();
      for (int b = 0; b < 4; b++) {
        byte[] block = Arrays.copyOfRange(data, b * BLOCK, (b + 1) * BLOCK);
        blocks.add(new BlockDescriptor(0, 1L, b, BLOCK, BLOCK, Crc32c.of(block)));
      }
      byte[] push =
          ServerTestClient.encode(
              new PushDataRequest(
                  2,
                  APP,
                  0,
                  List.of(),
                  blocks,
                  new NettyManagedBuffer(Unpooled.wrappedBuffer(data))));

      // Half a push, then the connection closes: the blocks placed for it go back.
      try (Socket s = sendHalf(server, handshake, push)) {
        s.shutdownOutput();
      }
      Await.until(
          () -> server.pushPool().allocatedBytes() == 0,
          () -> server.pushPool().allocatedBytes() + " bytes still placed after the close");

      // Half a push, then nothing: the frame timeout closes the connection, the blocks go back.
      try (Socket s = sendHalf(server, handshake, push)) {
        Await.until(
            () -> server.pushPool().allocatedBytes() == 0,
            () -> server.pushPool().allocatedBytes() + " bytes still placed past the timeout");
        // The handshake's answer, then the end of the stream: the server closed the connection.
        s.setSoTimeout(30_000);
        InputStream in = s.getInputStream();
        while (in.read() >= 0) {
          continue;
        }
      }
      assertEquals(0.0, server.metrics().registry().getSampleValue(IN_PLACE), "nothing was taken");
    }
  }

  /** A connection that sent its handshake and the first half of {@code push}, now placed. */
  private static Socket sendHalf(ShuffleServer server, byte[] handshake, byte[] push)
      throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    OutputStream out = s.getOutputStream();
    out.write(handshake);
    out.write(push, 0, push.length / 2);
    out.flush();
    Await.until(
        () -> server.pushPool().allocatedBytes() == 4L * BLOCK,
        () -> server.pushPool().allocatedBytes() + " bytes placed, 4 blocks expected");
    return s;
  }
}
