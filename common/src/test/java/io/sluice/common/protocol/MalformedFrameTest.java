package io.sluice.common.protocol;

import static io.sluice.common.transport.RawFrames.descriptor;
import static io.sluice.common.transport.RawFrames.frame;
import static io.sluice.common.transport.RawFrames.pushHeader;
import static io.sluice.common.transport.RawFrames.raw;
import static io.sluice.common.transport.RawFrames.rawFrame;
import static io.sluice.common.transport.RawFrames.responseHeader;
import static io.sluice.common.transport.RawFrames.writeString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.WireTestSupport.Recorder;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.protocol.message.StatusResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MalformedFrameTest {
  private static final int MAX_FRAME = 4096;
  private static final long ID = 0x0102_0304_0506_0708L;
  private static final byte[] APP = "app".getBytes(StandardCharsets.UTF_8);

  private final Random random = new Random(11);

  // ---- framing ----

  @Test
  void frameOverTheMaximumIsRejectedWithItsRequestIdAndTheLimitsKey() {
    byte[] wire =
        frame(
            MessageType.HANDSHAKE_REQUEST,
            out -> {
              out.writeLong(ID);
              out.writeInt(2).writeInt(2);
              writeString(out, "x".repeat(MAX_FRAME));
            });

    ProtocolException e = expectError(wire, StatusCode.FRAME_TOO_LARGE, ID);

    assertTrue(e.getMessage().contains(String.valueOf(MAX_FRAME)), e.getMessage());
    assertTrue(e.getMessage().contains(ProtocolOptions.MAX_FRAME_SIZE.key()), e.getMessage());
  }

  @Test
  void frameOverTheMaximumBeforeItsRequestIdArrivedHasNoRequestId() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    ByteBuf piece = Unpooled.directBuffer().writeInt(MAX_FRAME + 1).writeByte(1).writeInt(0);

    channel.writeInbound(piece);

    ProtocolException e = recorder.singleProtocolError();
    assertEquals(StatusCode.FRAME_TOO_LARGE, e.status());
    assertFalse(e.hasRequestId());
    assertEquals(-1L, e.requestId());
    assertEquals(0, piece.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void lengthOfZeroOrNegativeIsMalformedWithoutARequestId() {
    // The bytes after a length below 1 are not that frame's: they are not read as its request id.
    for (int length : new int[] {0, -1, Integer.MIN_VALUE}) {
      byte[] wire = raw(out -> out.writeInt(length).writeByte(1).writeLong(ID).writeInt(1));
      expectError(wire, StatusCode.MALFORMED_FRAME, null);
      expectError(raw(out -> out.writeInt(length)), StatusCode.MALFORMED_FRAME, null);
    }
  }

  @Test
  void framingErrorDiscardsEverythingHeldAndEverythingAfter() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    byte[] valid = WireTestSupport.encode(StatusResponse.ok(5), false);
    List<ByteBuf> pieces = new ArrayList<>();
    // A valid frame, then a bad length followed by a valid frame in the same read.
    ByteBuf first =
        Unpooled.directBuffer()
            .writeBytes(valid)
            .writeInt(MAX_FRAME + 1)
            .writeByte(3)
            .writeLong(ID)
            .writeBytes(valid);
    pieces.add(first);
    channel.writeInbound(first);
    assertEquals(1, recorder.messages.size());
    assertEquals(StatusCode.FRAME_TOO_LARGE, recorder.singleProtocolError().status());

    for (int i = 0; i < 3; i++) {
      ByteBuf later = Unpooled.directBuffer().writeBytes(valid);
      pieces.add(later);
      channel.writeInbound(later);
    }

    assertEquals(1, recorder.messages.size(), "nothing decoded after the error");
    assertEquals(1, recorder.errors.size(), "a single error");
    WireTestSupport.assertAllReleased(pieces);
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void closingTheChannelStopsDeliveryOfFramesAlreadyReceived() {
    Recorder recorder = new Recorder();
    ChannelInboundHandlerAdapter closeOnFirst =
        new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.fireChannelRead(msg);
            ctx.close();
          }
        };
    EmbeddedChannel channel =
        new EmbeddedChannel(
            new FrameDecoder(MAX_FRAME), new MessageDecoder(), closeOnFirst, recorder);
    byte[] valid = WireTestSupport.encode(StatusResponse.ok(5), false);
    ByteBuf three = Unpooled.directBuffer().writeBytes(valid).writeBytes(valid).writeBytes(valid);

    channel.writeInbound(three);

    assertEquals(1, recorder.messages.size());
    assertEquals(0, three.refCnt());
    channel.finishAndReleaseAll();
  }

  @Test
  void decoderReleasesAPartialFrameWhenTheChannelCloses() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    byte[] valid = WireTestSupport.encode(StatusResponse.ok(5), false);
    ByteBuf head = Unpooled.directBuffer().writeBytes(valid, 0, valid.length - 1);

    channel.writeInbound(head);
    assertEquals(1, head.refCnt(), "held until the rest arrives");
    channel.close();

    assertEquals(0, head.refCnt());
    assertTrue(recorder.messages.isEmpty());
  }

  @Test
  void decoderReleasesAPartialFrameWhenRemoved() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    ByteBuf head = Unpooled.directBuffer().writeInt(100).writeByte(3);

    channel.writeInbound(head);
    channel.pipeline().remove(FrameDecoder.class);

    assertEquals(0, head.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  // ---- message decoding ----

  @Test
  void unknownTypeByteIsRejectedWithTheRequestId() {
    for (int type : new int[] {0, 8, 99, 255}) {
      byte[] wire = rawFrame(type, out -> out.writeLong(ID).writeInt(7));
      ProtocolException e = expectError(wire, StatusCode.UNKNOWN_MESSAGE_TYPE, ID);
      assertTrue(e.getMessage().contains(String.valueOf(type)), e.getMessage());
    }
    expectError(rawFrame(99, out -> out.writeInt(7)), StatusCode.UNKNOWN_MESSAGE_TYPE, null);
  }

  @Test
  void emptyFrameIsMalformed() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = new EmbeddedChannel(new MessageDecoder(), recorder);
    ByteBuf empty = Unpooled.directBuffer(8);

    channel.writeInbound(empty);

    ProtocolException e = recorder.singleProtocolError();
    assertEquals(StatusCode.MALFORMED_FRAME, e.status());
    assertFalse(e.hasRequestId());
    assertEquals(0, empty.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void truncatedHeaderIsMalformed() {
    byte[] full = WireTestSupport.encode(new HandshakeRequest(ID, 2, 2, "client-1"), false);
    for (int cut = 1; cut < full.length - 4; cut++) {
      byte[] wire = new byte[4 + cut];
      System.arraycopy(full, 4, wire, 4, cut);
      Unpooled.wrappedBuffer(wire).setInt(0, cut);
      Long expectedId = cut >= 9 ? ID : null;
      expectError(wire, StatusCode.MALFORMED_FRAME, expectedId);
    }
  }

  @Test
  void invalidUtf8IsMalformed() {
    byte[][] invalid = {
      {(byte) 0xC3, 0x28},
      {(byte) 0x80},
      {(byte) 0xC0, (byte) 0x80},
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
      {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80}
    };
    for (byte[] bytes : invalid) {
      byte[] wire =
          frame(
              MessageType.APP_HEARTBEAT_REQUEST,
              out -> {
                out.writeLong(ID);
                out.writeShort(bytes.length).writeBytes(bytes);
              });
      expectError(wire, StatusCode.MALFORMED_FRAME, ID);
    }
  }

  @Test
  void stringLongerThanTheFrameIsMalformed() {
    byte[] wire =
        frame(
            MessageType.APP_HEARTBEAT_REQUEST,
            out -> {
              out.writeLong(ID);
              out.writeShort(10).writeBytes(APP);
            });
    expectError(wire, StatusCode.MALFORMED_FRAME, ID);
  }

  @Test
  void unknownEnumBytesAreMalformed() {
    byte[] badStatus =
        frame(
            MessageType.STATUS_RESPONSE,
            out -> {
              out.writeLong(ID).writeByte(99);
              writeString(out, "");
            });
    expectError(badStatus, StatusCode.MALFORMED_FRAME, ID);

    byte[] goodHeartbeat = WireTestSupport.encode(heartbeat(), false);
    int stateOffset = 4 + 1 + 8 + (2 + "s".length()) + (2 + "h".length()) + 4 + 4;
    assertEquals(ServerState.ACTIVE.code(), goodHeartbeat[stateOffset]);
    byte[] badState = goodHeartbeat.clone();
    badState[stateOffset] = 3;
    expectError(badState, StatusCode.MALFORMED_FRAME, ID);
  }

  @Test
  void booleanOtherThanZeroOrOneIsMalformed() {
    byte[] wire =
        frame(
            MessageType.FETCH_MEMORY_DATA_RESPONSE,
            out -> {
              responseHeader(out, ID);
              out.writeByte(2);
              out.writeLong(0).writeInt(0);
            });
    expectError(wire, StatusCode.MALFORMED_FRAME, ID);
  }

  @Test
  void countsLargerThanTheFrameAreMalformed() {
    for (int count : new int[] {-1, 2, 1_000_000, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
      byte[] longs =
          frame(
              MessageType.GET_SHUFFLE_RESULT_REQUEST,
              out -> {
                out.writeLong(ID);
                writeString(out, "app");
                out.writeInt(1).writeInt(7);
                out.writeInt(count).writeLong(1);
              });
      expectError(longs, StatusCode.MALFORMED_FRAME, ID);

      byte[] ints =
          frame(
              MessageType.GET_SHUFFLE_RESULT_RESPONSE,
              out -> {
                responseHeader(out, ID);
                out.writeInt(count).writeInt(1);
              });
      expectError(ints, StatusCode.MALFORMED_FRAME, ID);

      byte[] commits =
          frame(
              MessageType.COMMIT_MAP_OUTPUT_REQUEST,
              out -> {
                out.writeLong(ID);
                writeString(out, "app");
                out.writeInt(1).writeInt(0).writeLong(5);
                out.writeInt(count).writeInt(0).writeInt(1);
              });
      expectError(commits, StatusCode.MALFORMED_FRAME, ID);

      byte[] attempts =
          frame(
              MessageType.FETCH_MEMORY_DATA_REQUEST,
              out -> {
                out.writeLong(ID);
                writeString(out, "app");
                out.writeInt(1).writeInt(7).writeLong(-1).writeInt(4096);
                out.writeInt(count).writeLong(1);
              });
      expectError(attempts, StatusCode.MALFORMED_FRAME, ID);

      byte[] locations =
          frame(
              MessageType.LOCATIONS_RESPONSE,
              out -> {
                responseHeader(out, ID);
                out.writeInt(1);
                MessageFixtures.SERVER_A.encode(out);
                out.writeInt(count).writeInt(0).writeInt(0).writeShort(1).writeInt(0);
              });
      expectError(locations, StatusCode.MALFORMED_FRAME, ID);

      byte[] servers =
          frame(
              MessageType.ASSIGNMENT_RESPONSE,
              out -> {
                responseHeader(out, ID);
                out.writeInt(count);
                MessageFixtures.SERVER_A.encode(out);
                out.writeInt(0);
              });
      expectError(servers, StatusCode.MALFORMED_FRAME, ID);

      byte[] blocks =
          frame(
              MessageType.PUSH_DATA_REQUEST,
              out -> {
                pushHeader(out, ID, 0);
                out.writeInt(count);
                out.writeZero(BlockDescriptor.ENCODED_LENGTH);
              });
      expectError(blocks, StatusCode.MALFORMED_FRAME, ID);
    }
    byte[] replicas =
        frame(
            MessageType.PUSH_DATA_REQUEST,
            out -> {
              pushHeader(out, ID, 1);
              out.writeInt(0).writeShort(0xFFFF);
              MessageFixtures.SERVER_A.encode(out);
              out.writeInt(0);
            });
    expectError(replicas, StatusCode.MALFORMED_FRAME, ID);
  }

  @Test
  void blockLengthsNotAddingUpToTheBodyAreMalformed() {
    for (int bodySize : new int[] {99, 101, 0}) {
      byte[] wire =
          frame(
              MessageType.PUSH_DATA_REQUEST,
              out -> {
                pushHeader(out, ID, 0);
                out.writeInt(1);
                descriptor(out, 0, 100);
                out.writeZero(bodySize);
              });
      expectError(wire, StatusCode.MALFORMED_FRAME, ID);
    }
    byte[] memory =
        frame(
            MessageType.FETCH_MEMORY_DATA_RESPONSE,
            out -> {
              responseHeader(out, ID);
              out.writeByte(0).writeLong(3).writeInt(1);
              descriptor(out, 0, 10);
              out.writeZero(11);
            });
    expectError(memory, StatusCode.MALFORMED_FRAME, ID);
  }

  @Test
  void negativeBlockLengthIsMalformed() {
    byte[] wire =
        frame(
            MessageType.PUSH_DATA_REQUEST,
            out -> {
              pushHeader(out, ID, 0);
              out.writeInt(2);
              descriptor(out, 0, -5);
              descriptor(out, 1, 10);
              out.writeZero(5);
            });
    expectError(wire, StatusCode.MALFORMED_FRAME, ID);
  }

  @Test
  void negativeBlockSequenceIsMalformed() {
    byte[] wire =
        frame(
            MessageType.PUSH_DATA_REQUEST,
            out -> {
              pushHeader(out, ID, 0);
              out.writeInt(1);
              descriptor(out, -1, 10);
              out.writeZero(10);
            });
    ProtocolException e = expectError(wire, StatusCode.MALFORMED_FRAME, ID);
    assertTrue(e.getMessage().contains("sequence -1"), e.getMessage());
  }

  @Test
  void aCommittedBlockCountBelowOneIsMalformed() {
    for (int blockCount : new int[] {0, -1}) {
      byte[] wire =
          frame(
              MessageType.COMMIT_MAP_OUTPUT_REQUEST,
              out -> {
                out.writeLong(ID);
                writeString(out, "app");
                out.writeInt(1).writeInt(0).writeLong(5);
                out.writeInt(1).writeInt(3).writeInt(blockCount);
              });
      expectError(wire, StatusCode.MALFORMED_FRAME, ID);
    }
  }

  @Test
  void trailingBytesAfterAMessageWithoutBodyAreMalformed() {
    byte[] valid = WireTestSupport.encode(new HandshakeRequest(ID, 2, 2, "c"), false);
    for (int extra : new int[] {1, 3, 100}) {
      byte[] wire = new byte[valid.length + extra];
      System.arraycopy(valid, 0, wire, 0, valid.length);
      Unpooled.wrappedBuffer(wire).setInt(0, valid.length - 4 + extra);
      ProtocolException e = expectError(wire, StatusCode.MALFORMED_FRAME, ID);
      assertTrue(e.getMessage().contains("trailing"), e.getMessage());
    }
  }

  @Test
  void assignmentIndexOutsideTheServerListIsMalformed() {
    for (int index : new int[] {1, -1, 1000}) {
      byte[] wire =
          frame(
              MessageType.ASSIGNMENT_RESPONSE,
              out -> {
                responseHeader(out, ID);
                out.writeInt(1);
                MessageFixtures.SERVER_A.encode(out);
                out.writeInt(1).writeShort(2).writeInt(0).writeInt(index);
              });
      expectError(wire, StatusCode.MALFORMED_FRAME, ID);
    }
  }

  @Test
  void portOutOfRangeIsMalformed() {
    for (int port : new int[] {-1, 65536}) {
      byte[] wire =
          frame(
              MessageType.ASSIGNMENT_RESPONSE,
              out -> {
                responseHeader(out, ID);
                out.writeInt(1);
                writeString(out, "s");
                writeString(out, "h");
                out.writeInt(port);
                out.writeInt(0);
              });
      expectError(wire, StatusCode.MALFORMED_FRAME, ID);
    }
  }

  @Test
  void decodingGoesOnAfterAMalformedMessageUntilTheChannelIsClosed() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    byte[] bad = rawFrame(99, out -> out.writeLong(ID));
    byte[] good = WireTestSupport.encode(StatusResponse.ok(5), false);
    ByteBuf both = Unpooled.directBuffer().writeBytes(bad).writeBytes(good);

    channel.writeInbound(both);

    assertEquals(StatusCode.UNKNOWN_MESSAGE_TYPE, recorder.singleProtocolError().status());
    assertEquals(List.of(StatusResponse.ok(5)), recorder.messages);
    assertEquals(0, both.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  // ---- helpers ----

  /**
   * Feeds {@code wire} whole and split at random points; each time exactly one error, no message.
   */
  private ProtocolException expectError(byte[] wire, StatusCode status, Long requestId) {
    ProtocolException last = null;
    for (int attempt = 0; attempt < 4; attempt++) {
      Recorder recorder = new Recorder();
      EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
      int[] ends = WireTestSupport.randomCuts(wire.length, random, attempt * 3);
      List<ByteBuf> pieces = WireTestSupport.feed(channel, wire, ends, random);
      ProtocolException e = recorder.singleProtocolError();
      assertTrue(recorder.messages.isEmpty(), () -> "decoded " + recorder.messages);
      assertFalse(channel.finishAndReleaseAll());
      WireTestSupport.assertAllReleased(pieces);
      assertEquals(status, e.status(), e.getMessage());
      if (requestId == null) {
        assertFalse(e.hasRequestId(), e.getMessage());
        assertEquals(ProtocolException.UNKNOWN_REQUEST_ID, e.requestId());
      } else {
        assertEquals(requestIdReadable(wire, ends), e.hasRequestId(), e.getMessage());
        if (e.hasRequestId()) {
          assertEquals(requestId.longValue(), e.requestId());
        }
      }
      last = e;
    }
    return last;
  }

  /**
   * Whether the decoder could read the request id: always for a message-level error, never for a
   * length below 1, and for a frame too large only when the read that completed the length field
   * also held type and request id (the length is rejected as soon as it arrives).
   */
  private static boolean requestIdReadable(byte[] wire, int[] ends) {
    int length = Unpooled.wrappedBuffer(wire).getInt(0);
    if (length >= 1 && length <= MAX_FRAME) {
      return true;
    }
    if (length < 1) {
      return false;
    }
    for (int received : ends) {
      if (received >= 4) {
        return received >= 4 + 1 + 8;
      }
    }
    return false;
  }

  private static ServerHeartbeatRequest heartbeat() {
    return new ServerHeartbeatRequest(
        ID,
        new ServerStatus(
            "s", "h", 1, 2, ServerState.ACTIVE, "v", 0, 0, 0, 0, 0, List.of(), List.of(), 0));
  }
}
