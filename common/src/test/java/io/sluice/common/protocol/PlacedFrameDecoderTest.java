package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.WireTestSupport.Recorder;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.ReceiveTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A server's {@link FrameDecoder} with a {@link BodyPlacer}: a large frame's body goes into the
 * placer's buffers, its header is dropped, and the frame is fired as the message its placement
 * completes to; a placement that cannot complete gives its buffers back. The socket's reads
 * straight into those buffers are {@link ReceiveTarget}'s part, also tested here; an embedded
 * channel has no socket, so its writes reach the placement by the copy the decoder makes of bytes
 * that arrived in a usual buffer.
 */
class PlacedFrameDecoderTest {
  private static final int HEADER = 5;
  private static final byte PLACED_TYPE = 42;
  private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(5);

  /** Places frames whose type byte is {@link #PLACED_TYPE} into two buffers, after 5 bytes. */
  private static final class TwoBufferPlacer implements BodyPlacer {
    final List<ByteBuf[]> placed = new ArrayList<>();
    boolean abandoned;
    int offers;

    /** Per buffer, where the bytes told as arrived end: they must come in order, without gaps. */
    final int[] arrivedUpTo = new int[2];

    @Override
    public Placement place(ByteBuf frameStart, int frameLength) {
      offers++;
      if (frameStart.getByte(frameStart.readerIndex()) != PLACED_TYPE) {
        return null;
      }
      int body = frameLength - HEADER;
      ByteBuf[] buffers = {
        Unpooled.directBuffer(body / 3, body / 3),
        Unpooled.directBuffer(body - body / 3, body - body / 3)
      };
      placed.add(buffers);
      return new Placement() {
        @Override
        public int headerLength() {
          return HEADER;
        }

        @Override
        public ByteBuf[] buffers() {
          return buffers;
        }

        @Override
        public void arrived(int buffer, int index, int length) {
          assertEquals(arrivedUpTo[buffer], index, "bytes told in order, once each");
          assertEquals(buffers[buffer].writerIndex(), index + length, "told once written");
          arrivedUpTo[buffer] = index + length;
        }

        @Override
        public Message complete() {
          return new Placed(buffers);
        }

        @Override
        public void abandon() {
          abandoned = true;
          for (ByteBuf b : buffers) {
            b.release();
          }
        }
      };
    }
  }

  /** What a completed placement fires: its buffers. */
  private record Placed(ByteBuf[] buffers) implements Message {
    @Override
    public MessageType type() {
      return MessageType.PUSH_DATA_REQUEST;
    }

    @Override
    public int encodedLength() {
      return 0;
    }

    @Override
    public void encode(ByteBuf out) {}
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private static ByteBuf direct(byte[] bytes, int from, int to) {
    return PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(bytes, from, to - from);
  }

  /** {@code int32 length | type | 4 header bytes | body}, as the bytes a peer sends. */
  private static byte[] frame(byte type, byte[] body) {
    ByteBuf buf = Unpooled.buffer();
    buf.writeInt(HEADER + body.length).writeByte(type).writeInt(0x0A0B0C0D).writeBytes(body);
    return ByteBufUtil.getBytes(buf);
  }

  private static EmbeddedChannel channel(
      ReceiveBudget budget, TwoBufferPlacer placer, Recorder recorder) {
    EmbeddedChannel channel =
        new EmbeddedChannel(
            new FrameDecoder(
                1 << 20,
                budget,
                FrameGate.OPEN,
                FRAME_TIMEOUT,
                placer,
                new ReceiveTarget(new AdaptiveRecvByteBufAllocator())),
            recorder);
    channel.freezeTime();
    return channel;
  }

  @Test
  void aLargeFrameGoesIntoThePlacementAndTheNextFrameIsDecodedAsUsual() {
    ReceiveBudget budget = new ReceiveBudget(1 << 20);
    TwoBufferPlacer placer = new TwoBufferPlacer();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = channel(budget, placer, recorder);
    byte[] body = randomBytes(300_000);
    byte[] placedFrame = frame(PLACED_TYPE, body);
    byte[] next = frame((byte) 7, new byte[] {1, 2, 3});
    byte[] stream = new byte[placedFrame.length + next.length];
    System.arraycopy(placedFrame, 0, stream, 0, placedFrame.length);
    System.arraycopy(next, 0, stream, placedFrame.length, next.length);

    channel.writeInbound(direct(stream, 0, 2_000));
    assertEquals(1, placer.placed.size(), "placed once its first bytes arrived");
    for (int from = 2_000; from < stream.length; from += 70_000) {
      channel.writeInbound(direct(stream, from, Math.min(stream.length, from + 70_000)));
    }

    assertEquals(List.of(), recorder.errors);
    assertEquals(2, recorder.messages.size());
    Placed placed = assertInstanceOf(Placed.class, recorder.messages.get(0));
    ByteBuf[] buffers = placed.buffers();
    byte[] received = new byte[body.length];
    buffers[0].readBytes(received, 0, buffers[0].readableBytes());
    buffers[1].readBytes(
        received, body.length - buffers[1].readableBytes(), buffers[1].readableBytes());
    assertArrayEquals(body, received, "the body, without the frame's header");
    assertArrayEquals(
        new int[] {buffers[0].capacity(), buffers[1].capacity()},
        placer.arrivedUpTo,
        "every byte told as arrived");
    ByteBuf after = (ByteBuf) recorder.messages.get(1);
    assertEquals(7, after.readByte());
    after.release();
    for (ByteBuf b : buffers) {
      b.release();
    }
    assertEquals(0, budget.reservedBytes(), "the reservation is given back");
    assertFalse(placer.abandoned);
    assertEquals(1, placer.offers, "the small frame is not offered");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aPlacementThatCannotCompleteGivesItsBuffersBack() {
    ReceiveBudget budget = new ReceiveBudget(1 << 20);
    TwoBufferPlacer placer = new TwoBufferPlacer();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = channel(budget, placer, recorder);
    byte[] placedFrame = frame(PLACED_TYPE, randomBytes(200_000));

    channel.writeInbound(direct(placedFrame, 0, 100_000));
    assertEquals(1, placer.placed.size());
    channel.close();

    assertTrue(placer.abandoned);
    for (ByteBuf b : placer.placed.get(0)) {
      assertEquals(0, b.refCnt(), "released by the abandon");
    }
    assertEquals(List.of(), recorder.messages);
    assertEquals(0, budget.reservedBytes());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aFrameThePlacerDeclinesIsReceivedAsUsual() {
    ReceiveBudget budget = new ReceiveBudget(1 << 20);
    TwoBufferPlacer placer = new TwoBufferPlacer();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = channel(budget, placer, recorder);
    byte[] body = randomBytes(200_000);
    byte[] declined = frame((byte) 9, body);

    channel.writeInbound(direct(declined, 0, 1_000));
    channel.writeInbound(direct(declined, 1_000, declined.length));

    assertEquals(1, placer.offers);
    ByteBuf frame = (ByteBuf) recorder.messages.get(0);
    assertEquals(9, frame.readByte());
    frame.skipBytes(HEADER - 1);
    assertArrayEquals(body, ByteBufUtil.getBytes(frame));
    frame.release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void theTargetTakesTheNextReadsUpToItsCapacityAndTellsThemApart() {
    ReceiveTarget target = new ReceiveTarget(new AdaptiveRecvByteBufAllocator());
    RecvByteBufAllocator.Handle handle = target.newHandle();
    ByteBuf usual = handle.allocate(PooledByteBufAllocator.DEFAULT);
    assertFalse(target.isOwnRead(usual), "no target: a usual buffer");
    usual.release();

    ByteBuf into = Unpooled.directBuffer(1000, 1000).writerIndex(600);
    target.set(into);
    ByteBuf read = handle.allocate(PooledByteBufAllocator.DEFAULT);
    assertEquals(400, read.writableBytes(), "the target's unwritten part");
    assertTrue(read.hasMemoryAddress());
    assertEquals(into.memoryAddress() + 600, read.memoryAddress());
    read.writeBytes(new byte[] {5, 6});
    assertTrue(target.isOwnRead(read));
    assertFalse(target.isOwnRead(read), "told apart once");
    assertNotSame(into, read);
    assertEquals(5, into.getByte(600), "the bytes are in the target");
    read.release();

    target.clear();
    ByteBuf afterClear = handle.allocate(PooledByteBufAllocator.DEFAULT);
    assertFalse(target.isOwnRead(afterClear));
    assertSame(1, into.refCnt(), "the target's own count is untouched");
    afterClear.release();
    into.release();
  }
}
