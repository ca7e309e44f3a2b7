package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.WireTestSupport.Recorder;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

  @Test
  void frameInsideOneBufferIsASliceOfIt() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(100), recorder);
    ByteBuf in =
        PooledByteBufAllocator.DEFAULT
            .directBuffer()
            .writeInt(3)
            .writeByte(7)
            .writeByte(8)
            .writeByte(9)
            .writeShort(0);

    channel.writeInbound(in);

    assertEquals(1, recorder.messages.size());
    ByteBuf frame = (ByteBuf) recorder.messages.get(0);
    assertEquals(3, frame.readableBytes());
    assertEquals(7, frame.getByte(frame.readerIndex()));
    in.setByte(4, 42);
    assertEquals(42, frame.getByte(frame.readerIndex()), "the frame shares the received memory");
    frame.release();
    assertEquals(1, in.refCnt(), "the rest of the buffer is held for the next frame");
    assertFalse(channel.finishAndReleaseAll());
    assertEquals(0, in.refCnt());
  }

  @Test
  void frameSpanningBuffersIsACompositeOfThem() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(100), recorder);
    ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer().writeShort(0);
    ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer().writeShort(6).writeByte(1).writeByte(2);
    ByteBuf c = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(0x03040506).writeShort(0);

    channel.writeInbound(a);
    channel.writeInbound(b);
    assertEquals(0, recorder.messages.size());
    channel.writeInbound(c);

    assertEquals(1, recorder.messages.size());
    ByteBuf frame = (ByteBuf) recorder.messages.get(0);
    assertInstanceOf(CompositeByteBuf.class, frame);
    assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, ByteBufUtil.getBytes(frame));
    b.setByte(2, 42);
    c.setByte(0, 43);
    assertArrayEquals(
        new byte[] {42, 2, 43, 4, 5, 6},
        ByteBufUtil.getBytes(frame),
        "the frame shares the received memory");
    frame.release();
    assertEquals(0, a.refCnt());
    assertEquals(0, b.refCnt());
    assertEquals(1, c.refCnt(), "the start of the next frame is held");
    assertFalse(channel.finishAndReleaseAll());
    assertEquals(0, c.refCnt());
  }

  @Test
  void frameOfExactlyTheMaximumIsAccepted() {
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(5), recorder);
    ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(5).writeZero(5);

    channel.writeInbound(in);

    assertEquals(1, recorder.messages.size());
    assertEquals(0, recorder.errors.size());
    ((ByteBuf) recorder.messages.get(0)).release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void maximumFrameSizeMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> new FrameDecoder(0));
  }

  @Test
  void withAutoReadOffAReadThatCompletesNoFrameAsksForMore() {
    ReadCounter reads = new ReadCounter();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = new EmbeddedChannel(reads, new FrameDecoder(100), recorder);
    channel.config().setAutoRead(false);
    int before = reads.count;

    channel.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(2).writeByte(1));
    assertEquals(before + 1, reads.count, "partial frame: the decoder asks for more");

    channel.writeInbound(PooledByteBufAllocator.DEFAULT.directBuffer().writeByte(2));
    assertEquals(before + 1, reads.count, "a frame was delivered: reading is up to its consumer");

    assertEquals(1, recorder.messages.size());
    ((ByteBuf) recorder.messages.get(0)).release();
    assertFalse(channel.finishAndReleaseAll());
  }

  private static final class ReadCounter extends ChannelOutboundHandlerAdapter {
    int count;

    @Override
    public void read(ChannelHandlerContext ctx) {
      count++;
      ctx.read();
    }
  }
}
