package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.WireTestSupport.Recorder;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MessageRoundTripTest {
  private static final int MAX_FRAME = 1 << 20;
  private static final int SPLITS_PER_MESSAGE = 60;

  @TempDir Path tempDir;

  /** Encoded form of a sample message, with what the decoder must give back. */
  private record Encoded(Message original, byte[] body, byte[] wire) {}

  @Test
  void fixturesCoverEveryMessageType() {
    EnumSet<MessageType> seen = EnumSet.noneOf(MessageType.class);
    for (Message message : MessageFixtures.all(new Random(1))) {
      seen.add(message.type());
      assertEquals(message.type().messageClass(), message.getClass());
      if (message.body() != null) {
        message.body().release();
      }
    }
    assertEquals(EnumSet.allOf(MessageType.class), seen);
  }

  @Test
  void everyMessageRoundTripsThroughRandomSplits() {
    Random random = new Random(42);
    for (boolean tls : new boolean[] {false, true}) {
      for (Encoded encoded : encodeAll(random, tls)) {
        for (int split = 0; split < SPLITS_PER_MESSAGE; split++) {
          assertDecodesTo(List.of(encoded), encoded.wire(), random, 1 + split % 12);
        }
        assertDecodesByteByByte(encoded);
      }
    }
  }

  @Test
  void aStreamOfAllMessagesRoundTripsThroughRandomSplits() {
    Random random = new Random(7);
    List<Encoded> encoded = encodeAll(random, false);
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    for (Encoded e : encoded) {
      stream.writeBytes(e.wire());
    }
    byte[] bytes = stream.toByteArray();
    for (int split = 0; split < 200; split++) {
      assertDecodesTo(encoded, bytes, random, split % 100);
    }
  }

  @Test
  void fileSegmentBodyIsSentAsAFileRegion() throws IOException {
    Random random = new Random(3);
    byte[] content = new byte[10_000];
    random.nextBytes(content);
    Path file = Files.write(tempDir.resolve("data"), content);
    FileSegmentManagedBuffer segment = new FileSegmentManagedBuffer(file, 1234, 5000);
    FetchDataResponse response = FetchDataResponse.ok(9, segment);

    byte[] wire = WireTestSupport.encode(response, false);

    assertEquals(0, segment.refCnt(), "the region took the segment's reference and was released");
    byte[] expectedBody = Arrays.copyOfRange(content, 1234, 1234 + 5000);
    Encoded encoded = new Encoded(response, expectedBody, wire);
    for (int split = 0; split < SPLITS_PER_MESSAGE; split++) {
      assertDecodesTo(List.of(encoded), wire, random, 1 + split % 20);
    }
  }

  @Test
  void fileSegmentBodyUnderTlsIsSentInChunks() throws IOException {
    Random random = new Random(4);
    byte[] content = new byte[300_000];
    random.nextBytes(content);
    Path file = Files.write(tempDir.resolve("index"), content);
    FileSegmentManagedBuffer segment = new FileSegmentManagedBuffer(file, 10, content.length - 10);
    FetchIndexResponse response = FetchIndexResponse.ok(10, 777, segment);

    byte[] wire = WireTestSupport.encode(response, true);

    assertEquals(0, segment.refCnt());
    Encoded encoded = new Encoded(response, Arrays.copyOfRange(content, 10, content.length), wire);
    for (int split = 0; split < 10; split++) {
      assertDecodesTo(List.of(encoded), wire, random, 40);
    }
  }

  @Test
  void frameLengthCountsTypeHeaderAndBody() {
    Random random = new Random(5);
    for (Message message : MessageFixtures.all(random)) {
      int headerLength = message.encodedLength();
      long bodySize = message.body() == null ? 0 : message.body().size();
      byte[] wire = WireTestSupport.encode(message, false);
      int frameLength =
          ((wire[0] & 0xFF) << 24)
              | ((wire[1] & 0xFF) << 16)
              | ((wire[2] & 0xFF) << 8)
              | (wire[3] & 0xFF);
      assertEquals(1 + headerLength + bodySize, frameLength, message.toString());
      assertEquals(4 + frameLength, wire.length, message.toString());
      assertEquals(message.type().id(), wire[4], message.toString());
    }
  }

  @Test
  void encodingReleasesTheWritersReferenceOfAMemoryBody() {
    Random random = new Random(6);
    ManagedBuffer body = MessageFixtures.randomBody(random, 100);
    FetchDataResponse response = FetchDataResponse.ok(1, body);
    ByteBuf underlying = ((NettyManagedBuffer) body).byteBuf();

    WireTestSupport.encode(response, false);

    assertEquals(0, underlying.refCnt());
  }

  @Test
  void errorsOfRequestsAnsweredWithABodyAreBodilessStatusResponses() {
    // Protocol 2: a failed fetch is answered with a StatusResponse, never an empty-bodied error
    // form of the specific response, which offers only ok(...).
    for (Class<?> bodyResponse :
        List.of(
            FetchDataResponse.class,
            FetchIndexResponse.class,
            FetchMemoryDataResponse.class,
            HandshakeResponse.class,
            GetShuffleResultResponse.class)) {
      for (Method m : bodyResponse.getMethods()) {
        assertFalse(
            Modifier.isStatic(m.getModifiers()) && m.getName().equals("error"),
            bodyResponse.getSimpleName() + " still has an error factory: " + m);
      }
    }
    StatusResponse error = StatusResponse.error(1, StatusCode.DATA_NOT_FOUND, "gone");
    assertNull(error.body());
    byte[] wire = WireTestSupport.encode(error, false);
    Encoded encoded = new Encoded(error, null, wire);
    assertDecodesTo(List.of(encoded), wire, new Random(1), 3);
  }

  @Test
  void anEmptyBodyRoundTrips() {
    FetchDataResponse empty =
        FetchDataResponse.ok(2, new NettyManagedBuffer(Unpooled.EMPTY_BUFFER));
    byte[] wire = WireTestSupport.encode(empty, false);
    Encoded encoded = new Encoded(empty, new byte[0], wire);
    assertDecodesTo(List.of(encoded), wire, new Random(2), 3);
  }

  private static List<Encoded> encodeAll(Random random, boolean tls) {
    List<Encoded> result = new ArrayList<>();
    for (Message message : MessageFixtures.all(random)) {
      byte[] body = message.body() == null ? null : WireTestSupport.bodyBytes(message.body());
      ByteBuf underlying = message.body() instanceof NettyManagedBuffer nmb ? nmb.byteBuf() : null;
      byte[] wire = WireTestSupport.encode(message, tls);
      if (underlying != null && underlying.capacity() > 0) {
        assertEquals(0, underlying.refCnt(), "body freed once written: " + message);
      }
      result.add(new Encoded(message, body, wire));
    }
    return result;
  }

  private static void assertDecodesTo(
      List<Encoded> expected, byte[] wire, Random random, int maxCuts) {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    List<ByteBuf> pieces = WireTestSupport.feedSplit(channel, wire, random, maxCuts);
    try {
      assertTrue(recorder.errors.isEmpty(), () -> "errors: " + recorder.errors);
      assertEquals(expected.size(), recorder.messages.size());
      for (int i = 0; i < expected.size(); i++) {
        assertDecoded(expected.get(i), recorder.messages.get(i));
      }
    } finally {
      recorder.releaseMessages();
      assertFalse(channel.finishAndReleaseAll());
    }
    WireTestSupport.assertAllReleased(pieces);
    for (Object message : recorder.messages) {
      ManagedBuffer body = ((Message) message).body();
      if (body != null) {
        assertEquals(0, body.refCnt(), "decoded body released: " + message);
      }
    }
  }

  private static void assertDecoded(Encoded expected, Object decoded) {
    assertEquals(expected.original(), decoded);
    assertEquals(expected.original().hashCode(), decoded.hashCode());
    Message message = (Message) decoded;
    if (expected.body() == null) {
      assertNull(message.body());
    } else {
      assertNotNull(message.body(), "body of " + message);
      assertArrayEquals(
          expected.body(), WireTestSupport.bodyBytes(message.body()), "body of " + message);
    }
  }

  private static void assertDecodesByteByByte(Encoded encoded) {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    List<ByteBuf> pieces = new ArrayList<>();
    Random random = new Random(0);
    byte[] wire = encoded.wire();
    for (int i = 0; i < wire.length; i++) {
      ByteBuf piece = WireTestSupport.pooled(random, wire, i, 1);
      pieces.add(piece);
      channel.writeInbound(piece);
      assertEquals(i == wire.length - 1 ? 1 : 0, recorder.messages.size());
    }
    try {
      assertDecoded(encoded, recorder.messages.get(0));
    } finally {
      recorder.releaseMessages();
      assertFalse(channel.finishAndReleaseAll());
    }
    WireTestSupport.assertAllReleased(pieces);
  }
}
