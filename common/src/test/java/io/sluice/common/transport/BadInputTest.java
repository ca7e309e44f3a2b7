package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends malformed input to a live server on real sockets and checks that the sender gets an error
 * answer and a closed connection, while a well-behaved client on another connection is served
 * throughout.
 */
class BadInputTest {
  private static final int MAX_FRAME = 64 * 1024;

  @TempDir static Path dir;
  private static TransportServer server;
  private static TransportClientFactory factory;

  @BeforeAll
  static void start() throws Exception {
    TransportConf conf =
        TransportTestSupport.conf(
            Map.of(TransportOptions.MAX_FRAME_SIZE.key(), String.valueOf(MAX_FRAME)));
    server =
        TransportTestSupport.context(conf, "server")
            .createServer(
                "127.0.0.1", 0, new TestHandler(Files.write(dir.resolve("d"), new byte[1])));
    factory = TransportTestSupport.context(conf, "good-client").createClientFactory();
  }

  @AfterAll
  static void stop() {
    factory.close();
    server.close();
  }

  @Test
  void frameOverTheMaximumIsAnsweredWithItsRequestId() throws Exception {
    assertRejected(
        RawFrames.header(MAX_FRAME + 1, MessageType.PUSH_DATA_REQUEST.id(), 42),
        StatusCode.FRAME_TOO_LARGE,
        42);
  }

  @Test
  void negativeLengthIsRejected() throws Exception {
    // The bytes after a negative length are not taken for the frame's request id.
    assertRejected(
        RawFrames.header(-5, MessageType.PUSH_DATA_REQUEST.id(), 43),
        StatusCode.MALFORMED_FRAME,
        -1);
  }

  @Test
  void zeroLengthIsRejected() throws Exception {
    assertRejected(new byte[] {0, 0, 0, 0}, StatusCode.MALFORMED_FRAME, -1);
  }

  @Test
  void unknownTypeByteIsRejected() throws Exception {
    assertRejected(RawFrames.header(9, 123, 44), StatusCode.UNKNOWN_MESSAGE_TYPE, 44);
  }

  @Test
  void truncatedHeaderIsRejected() throws Exception {
    // An app heartbeat whose string claims 200 bytes but the frame ends after 3.
    byte[] frame = {
      0,
      0,
      0,
      14,
      MessageType.APP_HEARTBEAT_REQUEST.id(),
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      45,
      0,
      (byte) 200,
      'a',
      'b',
      'c'
    };
    assertRejected(frame, StatusCode.MALFORMED_FRAME, 45);
  }

  @Test
  void garbledStringIsRejected() throws Exception {
    byte[] frame = {
      0,
      0,
      0,
      13,
      MessageType.APP_HEARTBEAT_REQUEST.id(),
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      46,
      0,
      2,
      (byte) 0xC3,
      (byte) 0x28
    };
    assertRejected(frame, StatusCode.MALFORMED_FRAME, 46);
  }

  @Test
  void requestBeforeHandshakeIsRejected() throws Exception {
    try (Socket socket = socket()) {
      socket.getOutputStream().write(RawFrames.encode(new AppHeartbeatRequest(47, "app")));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(StatusCode.HANDSHAKE_REQUIRED.code(), answer.status());
      assertEquals(47, answer.requestId());
      assertTrue(RawFrames.closedByPeer(socket));
    }
  }

  @Test
  void aResponseSentToAServerIsRefusedWithItsOwnRequestIdAndClosed() throws Exception {
    try (Socket socket = socket()) {
      socket.getOutputStream().write(RawFrames.encode(StatusResponse.ok(51)));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(StatusCode.INVALID_REQUEST.code(), answer.status());
      assertEquals(51, answer.requestId());
      assertTrue(RawFrames.closedByPeer(socket));
    }
  }

  @Test
  void aNewerClientGetsAClearErrorNamingBothRanges() throws Exception {
    int future = ProtocolVersion.CURRENT + 1;
    try (Socket socket = socket()) {
      socket
          .getOutputStream()
          .write(RawFrames.encode(new HandshakeRequest(48, future, future + 2, "future-client")));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(MessageType.STATUS_RESPONSE.id(), answer.type());
      assertEquals(StatusCode.VERSION_MISMATCH.code(), answer.status());
      assertEquals(48, answer.requestId());
      assertTrue(
          answer
              .message()
              .contains(
                  "speaks protocol versions " + ProtocolVersion.describeRange(future, future + 2)),
          answer.message());
      assertTrue(
          answer.message().contains("this server speaks " + serverRange()), answer.message());
      assertTrue(RawFrames.closedByPeer(socket));
    }
  }

  @Test
  void aClientOfferingOnlyVersionOneIsAnsweredVersionMismatchAndClosed() throws Exception {
    try (Socket socket = socket()) {
      socket.getOutputStream().write(RawFrames.encode(new HandshakeRequest(49, 1, 1, "old")));
      // The answer is a StatusResponse (no HandshakeResponse) that a version-1 client can decode.
      Message answer = RawFrames.readMessage(socket);
      StatusResponse status = assertInstanceOf(StatusResponse.class, answer);
      assertEquals(StatusCode.VERSION_MISMATCH, status.status());
      assertEquals(49, status.requestId());
      assertTrue(
          status.errorMessage().contains("client old speaks protocol versions 1,"),
          status.errorMessage());
      assertTrue(
          status.errorMessage().contains("this server speaks " + serverRange()),
          status.errorMessage());
      assertTrue(RawFrames.closedByPeer(socket), "the connection is closed after the answer");
    }
  }

  @Test
  void anOverlappingRangeIsAnsweredWithTheHighestSharedVersion() throws Exception {
    try (Socket socket = socket()) {
      socket
          .getOutputStream()
          .write(
              RawFrames.encode(
                  new HandshakeRequest(50, 1, ProtocolVersion.CURRENT + 5, "wide-client")));
      HandshakeResponse hello =
          assertInstanceOf(HandshakeResponse.class, RawFrames.readMessage(socket));
      assertEquals(StatusCode.OK, hello.status());
      assertEquals(50, hello.requestId());
      assertEquals(ProtocolVersion.CURRENT, hello.protocolVersion());
      assertEquals("server", hello.serverId());
      // The connection stays usable.
      socket.getOutputStream().write(RawFrames.encode(new AppHeartbeatRequest(51, "app")));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(StatusCode.OK.code(), answer.status());
      assertEquals(51, answer.requestId());
    }
  }

  private static String serverRange() {
    return ProtocolVersion.describeRange(ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT);
  }

  @Test
  void wellBehavedClientIsServedWhileOthersMisbehave() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger served = new AtomicInteger();
    CompletableFuture<Void> good =
        CompletableFuture.runAsync(
            () -> {
              try {
                while (!stop.get()) {
                  StatusResponse r =
                      factory
                          .getClient("127.0.0.1", server.port())
                          .request(
                              new AppHeartbeatRequest(TransportClient.nextRequestId(), "good"),
                              StatusResponse.class)
                          .get(5, TimeUnit.SECONDS);
                  assertEquals(StatusCode.OK, r.status());
                  served.incrementAndGet();
                }
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    for (int i = 0; i < 50; i++) {
      frameOverTheMaximumIsAnsweredWithItsRequestId();
      unknownTypeByteIsRejected();
      truncatedHeaderIsRejected();
      negativeLengthIsRejected();
    }
    stop.set(true);
    try {
      good.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("the well-behaved client failed", e.getCause());
    }
    assertTrue(served.get() > 0);
  }

  private static void assertRejected(byte[] badFrame, StatusCode expected, long requestId)
      throws Exception {
    try (Socket socket = socket()) {
      OutputStream out = socket.getOutputStream();
      ByteArrayOutputStream hello = new ByteArrayOutputStream();
      hello.write(
          RawFrames.encode(
              new HandshakeRequest(
                  1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "bad-client")));
      out.write(hello.toByteArray());
      RawFrames.Answer handshake = RawFrames.readAnswer(socket);
      assertEquals(StatusCode.OK.code(), handshake.status());
      out.write(badFrame);
      out.flush();
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(MessageType.STATUS_RESPONSE.id(), answer.type());
      assertEquals(expected.code(), answer.status(), answer.message());
      assertEquals(requestId, answer.requestId());
      assertTrue(RawFrames.closedByPeer(socket), "connection should be closed");
    }
  }

  private static Socket socket() throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    s.setSoTimeout(5000);
    return s;
  }
}
