package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.WireTestSupport.Recorder;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Feeds the decoding pipeline thousands of random inputs and mutations of valid frames: whatever
 * the bytes, the only failures are {@link ProtocolException}s, every decoded message can be
 * released, and every received buffer ends up freed.
 */
class ProtocolFuzzTest {
  private static final long SEED = 0x5EED_F00DL;
  private static final int ITERATIONS = 20_000;
  private static final int MAX_FRAME = 16 * 1024;
  private static final int[] EXTREME_INTS = {
    0, -1, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0xFFFF, 0x10000, MAX_FRAME, MAX_FRAME + 1
  };

  @Test
  void arbitraryBytesCauseOnlyProtocolErrorsAndLeakNothing() {
    Random random = new Random(SEED);
    List<byte[]> valid = new ArrayList<>();
    for (Message message : MessageFixtures.all(random)) {
      valid.add(WireTestSupport.encode(message, false));
    }
    Map<StatusCode, Integer> errors = new EnumMap<>(StatusCode.class);
    int decoded = 0;

    for (int i = 0; i < ITERATIONS; i++) {
      byte[] input = generate(random, valid);
      Recorder recorder = new Recorder();
      EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
      List<ByteBuf> pieces = WireTestSupport.feedSplit(channel, input, random, 5);
      try {
        channel.checkException();
        for (Throwable error : recorder.errors) {
          if (!(error instanceof ProtocolException e)) {
            throw new AssertionError("input " + ByteBufUtil.hexDump(input), error);
          }
          errors.merge(e.status(), 1, Integer::sum);
        }
        for (Object message : recorder.messages) {
          assertInstanceOf(Message.class, message);
          assertTrue(message.toString().startsWith(message.getClass().getSimpleName()));
          assertReencodesToItself((Message) message);
          decoded++;
        }
      } finally {
        recorder.releaseMessages();
        channel.finishAndReleaseAll();
      }
      for (Object message : recorder.messages) {
        if (message instanceof AbstractBodyMessage bodyMessage) {
          assertEquals(0, bodyMessage.refCnt(), "input " + ByteBufUtil.hexDump(input));
        }
      }
      WireTestSupport.assertAllReleased(pieces);
    }

    // The mutations must reach every kind of error and still let many messages through.
    assertTrue(decoded > ITERATIONS / 5, "decoded " + decoded);
    for (StatusCode expected :
        new StatusCode[] {
          StatusCode.MALFORMED_FRAME, StatusCode.UNKNOWN_MESSAGE_TYPE, StatusCode.FRAME_TOO_LARGE
        }) {
      assertTrue(errors.getOrDefault(expected, 0) > 100, expected + " in " + errors);
    }
  }

  /** Whatever was decoded, however odd its values, encodes again to a frame that decodes equal. */
  private static void assertReencodesToItself(Message message) {
    byte[] body = null;
    if (message instanceof AbstractBodyMessage bodyMessage) {
      body = WireTestSupport.bodyBytes(bodyMessage.body());
      // Writing hands a reference to the channel; the recorder keeps its own for the release.
      bodyMessage.retain();
    }
    byte[] wire = WireTestSupport.encode(message, false);
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = WireTestSupport.decodingChannel(MAX_FRAME, recorder);
    channel.writeInbound(Unpooled.wrappedBuffer(wire));
    try {
      assertEquals(List.of(), recorder.errors);
      assertEquals(List.of(message), recorder.messages);
      if (body != null) {
        Message again = (Message) recorder.messages.get(0);
        assertArrayEquals(body, WireTestSupport.bodyBytes(again.body()));
      }
    } finally {
      recorder.releaseMessages();
      channel.finishAndReleaseAll();
    }
  }

  private static byte[] generate(Random random, List<byte[]> valid) {
    int parts = random.nextInt(10) == 0 ? 2 + random.nextInt(3) : 1;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < parts; i++) {
      out.writeBytes(generateOne(random, valid));
    }
    return out.toByteArray();
  }

  private static byte[] generateOne(Random random, List<byte[]> valid) {
    byte[] frame = valid.get(random.nextInt(valid.size())).clone();
    switch (random.nextInt(8)) {
      case 0 -> flipBits(random, frame);
      case 1 -> frame = truncate(random, frame);
      case 2 -> setLength(random, frame);
      case 3 -> frame[4] = swapType(random);
      case 4 -> frame = garbage(random);
      case 5 -> overwriteInt(random, frame);
      case 6 -> {
        flipBits(random, frame);
        frame = truncate(random, frame);
      }
      default -> {} // unchanged: the pipeline must go on decoding valid frames
    }
    return frame;
  }

  private static void flipBits(Random random, byte[] frame) {
    int flips = 1 + random.nextInt(4);
    for (int i = 0; i < flips; i++) {
      // Mostly in the header region, where a flip changes how the rest is read.
      int bound = random.nextInt(4) == 0 ? frame.length : Math.min(frame.length, 48);
      int position = random.nextInt(bound);
      frame[position] ^= (byte) (1 << random.nextInt(8));
    }
  }

  /** Cuts the frame short; half the time the length field is fixed to match the shorter frame. */
  private static byte[] truncate(Random random, byte[] frame) {
    int length = random.nextInt(frame.length);
    byte[] cut = new byte[length];
    System.arraycopy(frame, 0, cut, 0, length);
    if (length >= 4 && random.nextBoolean()) {
      putInt(cut, 0, length - 4);
    }
    return cut;
  }

  private static void setLength(Random random, byte[] frame) {
    int current = frame.length - 4;
    int length =
        switch (random.nextInt(4)) {
          case 0 -> EXTREME_INTS[random.nextInt(EXTREME_INTS.length)];
          case 1 -> current + random.nextInt(17) - 8;
          case 2 -> random.nextInt();
          default -> random.nextInt(current + 1);
        };
    putInt(frame, 0, length);
  }

  private static byte swapType(Random random) {
    MessageType[] types = MessageType.values();
    return random.nextBoolean()
        ? types[random.nextInt(types.length)].id()
        : (byte) random.nextInt(256);
  }

  private static byte[] garbage(Random random) {
    byte[] bytes = new byte[random.nextInt(80)];
    random.nextBytes(bytes);
    if (bytes.length >= 5 && random.nextBoolean()) {
      putInt(bytes, 0, bytes.length - 4);
    }
    return bytes;
  }

  /** Replaces four bytes after the type byte with an extreme value: hits counts and lengths. */
  private static void overwriteInt(Random random, byte[] frame) {
    if (frame.length < 9) {
      return;
    }
    int position = 5 + random.nextInt(frame.length - 8);
    putInt(frame, position, EXTREME_INTS[random.nextInt(EXTREME_INTS.length)]);
  }

  private static void putInt(byte[] bytes, int index, int value) {
    Unpooled.wrappedBuffer(bytes).setInt(index, value);
  }
}
