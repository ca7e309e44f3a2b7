package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.FrameDecoder;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageDecoder;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pushed block that does not match its CRC32C is refused and never stored; a client speaking the
 * previous protocol version (2) is served as before and gets the refusal as the status it knows.
 */
class CorruptPushTest {
  private static final String APP = "app-corrupt";
  private static final byte[] GOOD = "a block that arrives intact".getBytes();
  private static final byte[] BAD = "a block that was damaged on its way".getBytes();

  @TempDir Path dir;

  private static BlockDescriptor block(int sequence, byte[] data, int crc) {
    return new BlockDescriptor(0, 1L, sequence, data.length, data.length, crc);
  }

  @Test
  void aCorruptBlockIsRefusedAndNothingOfItsPushIsKept() throws Exception {
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient client = new ServerTestClient(server)) {
      client.registerApp(APP);
      client.registerShuffle(APP, 0, 1);
      RemoteException refused =
          assertThrows(
              RemoteException.class,
              () ->
                  client.pushRaw(
                      APP,
                      0,
                      List.of(),
                      List.of(block(0, GOOD, Crc32c.of(GOOD)), block(1, BAD, Crc32c.of(GOOD))),
                      GOOD,
                      BAD));
      assertEquals(StatusCode.CORRUPT_BLOCK, refused.status());
      assertTrue(refused.getMessage().contains("block 1 of map attempt 1"), refused.getMessage());

      assertEquals(0, server.pushPool().usedBytes(), "the intact block of the push is not kept");
      FetchMemoryDataResponse memory =
          client.send(
              new FetchMemoryDataRequest(
                  TransportClient.nextRequestId(),
                  APP,
                  0,
                  0,
                  FetchMemoryDataRequest.FROM_START,
                  1 << 20,
                  new long[0]),
              FetchMemoryDataResponse.class);
      try {
        assertEquals(List.of(), memory.blocks(), "nothing was stored");
      } finally {
        memory.release();
      }
      assertEquals(
          1.0,
          server
              .metrics()
              .registry()
              .getSampleValue(
                  "sluice_server_push_rejections_total",
                  new String[] {"reason"},
                  new String[] {StatusCode.CORRUPT_BLOCK.name()}));
    }
  }

  @Test
  void aClientSpeakingVersionTwoIsServedAndGetsTheStatusItKnows() throws Exception {
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient admin = new ServerTestClient(server);
        VersionTwoClient old = new VersionTwoClient(server.port())) {
      admin.registerApp(APP);
      admin.registerShuffle(APP, 0, 1);

      HandshakeResponse hello =
          old.call(new HandshakeRequest(1, 2, 2, "release-with-v2"), HandshakeResponse.class);
      assertEquals(2, hello.protocolVersion());

      StatusResponse ok =
          old.call(push(2, block(0, GOOD, Crc32c.of(GOOD)), GOOD), StatusResponse.class);
      assertEquals(StatusCode.OK, ok.status());
      StatusResponse refused = old.call(push(3, block(1, BAD, 12345), BAD), StatusResponse.class);
      assertEquals(StatusCode.INVALID_REQUEST, refused.status(), "version 2 has no CORRUPT_BLOCK");
      assertTrue(refused.errorMessage().contains("CRC32C"), refused.errorMessage());

      FetchMemoryDataResponse page =
          old.call(
              new FetchMemoryDataRequest(
                  4, APP, 0, 0, FetchMemoryDataRequest.FROM_START, 1 << 20, new long[0]),
              FetchMemoryDataResponse.class);
      try {
        assertEquals(List.of(block(0, GOOD, Crc32c.of(GOOD))), page.blocks());
        ByteBuf body = ((NettyManagedBuffer) page.body()).byteBuf();
        assertArrayEquals(GOOD, ByteBufUtil.getBytes(body));
      } finally {
        page.release();
      }
    }
  }

  @Test
  void aClientSpeakingOnlyVersionOneIsRefused() throws Exception {
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        VersionTwoClient ancient = new VersionTwoClient(server.port())) {
      StatusResponse refused =
          ancient.call(new HandshakeRequest(1, 1, 1, "pre-release"), StatusResponse.class);
      assertEquals(StatusCode.VERSION_MISMATCH, refused.status());
      assertTrue(
          refused
              .errorMessage()
              .contains(
                  ProtocolVersion.describeRange(
                      ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT)),
          refused.errorMessage());
    }
  }

  private static PushDataRequest push(long requestId, BlockDescriptor block, byte[] data) {
    return new PushDataRequest(
        requestId,
        APP,
        0,
        List.of(),
        List.of(block),
        new NettyManagedBuffer(Unpooled.wrappedBuffer(data)));
  }

  /**
   * A client of an earlier release, written against the wire alone: it sends the messages it knows
   * and reads one answer per request, in order.
   */
  private static final class VersionTwoClient implements AutoCloseable {
    private final Socket socket;
    private final EmbeddedChannel encoder = new EmbeddedChannel(new MessageEncoder(false));
    private final EmbeddedChannel decoder =
        new EmbeddedChannel(new FrameDecoder(64 << 20), new MessageDecoder());

    VersionTwoClient(int port) throws IOException {
      this.socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(60_000);
    }

    <R extends Message> R call(Message request, Class<R> type) throws IOException {
      encoder.writeOutbound(request);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      Object part;
      while ((part = encoder.readOutbound()) != null) {
        ByteBuf buf = (ByteBuf) part;
        bytes.writeBytes(ByteBufUtil.getBytes(buf));
        buf.release();
      }
      socket.getOutputStream().write(bytes.toByteArray());
      InputStream in = socket.getInputStream();
      byte[] chunk = new byte[8192];
      Object answer;
      while ((answer = decoder.readInbound()) == null) {
        int n = in.read(chunk);
        if (n < 0) {
          throw new IOException("the server closed the connection");
        }
        decoder.writeInbound(Unpooled.copiedBuffer(chunk, 0, n));
      }
      if (!type.isInstance(answer)) {
        ReferenceCountUtil.release(answer);
      }
      return assertInstanceOf(type, answer);
    }

    @Override
    public void close() throws IOException {
      socket.close();
      encoder.finishAndReleaseAll();
      decoder.finishAndReleaseAll();
    }
  }
}
