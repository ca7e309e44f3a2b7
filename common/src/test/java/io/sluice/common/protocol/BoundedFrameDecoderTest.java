package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.WireTestSupport.Recorder;
import io.sluice.common.transport.FrameGate;
import io.sluice.common.transport.ReceiveBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The server side of {@link FrameDecoder}: frames reserved from a receive budget. */
class BoundedFrameDecoderTest {
  private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(5);

  private static ByteBuf bytes(int... values) {
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
    for (int v : values) {
      buf.writeByte(v);
    }
    return buf;
  }

  /**
   * A channel whose clock moves only when a test says so: no frame timer fires on a slow machine.
   */
  private static EmbeddedChannel frozen(io.netty.channel.ChannelHandler... handlers) {
    EmbeddedChannel channel = new EmbeddedChannel(handlers);
    channel.freezeTime();
    return channel;
  }

  private static ByteBuf header(int frameLength) {
    return PooledByteBufAllocator.DEFAULT.directBuffer().writeInt(frameLength);
  }

  @Test
  void aFrameHoldsItsLengthUntilTheNextHandlerReturns() {
    ReceiveBudget budget = new ReceiveBudget(100);
    long[] reservedWhileHandled = {-1};
    Recorder recorder = new Recorder();
    ChannelInboundHandlerAdapter sampler =
        new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reservedWhileHandled[0] = budget.reservedBytes();
            ctx.fireChannelRead(msg);
          }
        };
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), sampler, recorder);

    channel.writeInbound(header(3).writeByte(1));
    assertEquals(3, budget.reservedBytes(), "reserved before the body arrives");
    channel.writeInbound(bytes(2, 3));

    assertEquals(3, reservedWhileHandled[0]);
    assertEquals(0, budget.reservedBytes(), "given back once handled");
    assertArrayEquals(
        new byte[] {1, 2, 3}, ByteBufUtil.getBytes((ByteBuf) recorder.messages.get(0)));
    ((ByteBuf) recorder.messages.get(0)).release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aHandlerThatMakesTheChannelWritableAgainDoesNotAdmitTheNextFrameBeforeItReturns() {
    ReceiveBudget budget = new ReceiveBudget(100);
    List<Long> reservedWhileHandled = new ArrayList<>();
    Recorder recorder = new Recorder();
    ChannelInboundHandlerAdapter writer =
        new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reservedWhileHandled.add(budget.reservedBytes());
            // As a write whose flush drains the outbound buffer below its low-water mark does:
            // Netty reports the channel writable again before the write returns.
            ctx.pipeline().fireChannelWritabilityChanged();
            ctx.fireChannelRead(msg);
          }
        };
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), writer, recorder);

    channel.writeInbound(header(3).writeByte(1));
    assertEquals(3, budget.reservedBytes());
    // The rest of the first frame, and the start of a second that needs a reservation of its own.
    channel.writeInbound(bytes(2, 3).writeInt(4).writeByte(4));
    assertEquals(List.of(3L), reservedWhileHandled);
    assertEquals(4, budget.reservedBytes(), "the second frame reserved once the first gave back");
    channel.writeInbound(bytes(5, 6, 7));

    assertEquals(List.of(3L, 4L), reservedWhileHandled);
    assertEquals(0, budget.reservedBytes(), "every reservation given back");
    assertEquals(2, recorder.messages.size());
    assertArrayEquals(
        new byte[] {4, 5, 6, 7}, ByteBufUtil.getBytes((ByteBuf) recorder.messages.get(1)));
    recorder.messages.forEach(m -> ((ByteBuf) m).release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aFrameThatDoesNotFitStopsReadingUntilItIsGranted() {
    ReceiveBudget budget = new ReceiveBudget(50);
    Recorder recorder = new Recorder();
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), recorder);
    assertTrue(budget.reserveOrQueue(40, () -> {}), "another connection holds 40 bytes");

    channel.writeInbound(header(20).writeZero(5));
    assertFalse(channel.config().isAutoRead(), "waits for its reservation without reading");
    assertEquals(1, budget.queuedCount());
    channel.writeInbound(bytes(new int[15]));
    assertEquals(0, recorder.messages.size(), "nothing is handed on before the grant");

    budget.release(40);
    channel.runPendingTasks();
    assertTrue(channel.config().isAutoRead());
    assertEquals(1, recorder.messages.size(), "the grant lets the queued bytes through");
    assertEquals(0, budget.reservedBytes());
    ((ByteBuf) recorder.messages.get(0)).release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aFrameThatArrivedWholeGoesOnWithoutWaitingForReceiveMemory() {
    ReceiveBudget budget = new ReceiveBudget(50);
    Recorder recorder = new Recorder();
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), recorder);
    assertTrue(budget.reserveOrQueue(40, () -> {}), "another connection holds 40 bytes");
    assertFalse(budget.reserveOrQueue(30, () -> {}), "and a third waits for 30");

    channel.writeInbound(header(20).writeZero(20));
    assertEquals(1, recorder.messages.size(), "its bytes are here: handed on at once");
    assertTrue(channel.config().isAutoRead());
    assertEquals(40, budget.reservedBytes(), "without a reservation");
    assertEquals(1, budget.queuedCount());

    ((ByteBuf) recorder.messages.get(0)).release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aConnectionClosedWhileQueuedLeavesNothingReserved() {
    ReceiveBudget budget = new ReceiveBudget(50);
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), new Recorder());
    assertTrue(budget.reserveOrQueue(40, () -> {}));
    channel.writeInbound(header(20).writeByte(0));
    assertEquals(1, budget.queuedCount());

    channel.close();
    assertEquals(0, budget.queuedCount());
    budget.release(40);
    assertEquals(0, budget.reservedBytes());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aConnectionClosedAfterItsGrantWasSentGivesItBack() {
    ReceiveBudget budget = new ReceiveBudget(50);
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), new Recorder());
    assertTrue(budget.reserveOrQueue(40, () -> {}));
    channel.writeInbound(header(20).writeByte(0));
    budget.release(40); // grants 20 to the channel; the hand-over waits on its event loop
    assertEquals(20, budget.reservedBytes());

    channel.close();
    channel.runPendingTasks();
    assertEquals(0, budget.reservedBytes());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aFrameThatStallsPastTheTimeoutClosesTheConnectionAndGivesItsReservationBack() {
    ReceiveBudget budget = new ReceiveBudget(1000);
    EmbeddedChannel channel =
        frozen(new FrameDecoder(1000, budget, FrameGate.OPEN, FRAME_TIMEOUT), new Recorder());
    channel.writeInbound(header(500).writeZero(100));
    assertEquals(500, budget.reservedBytes());

    channel.advanceTimeBy(FRAME_TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertTrue(channel.isOpen(), "still within the frame timeout");
    channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    assertFalse(channel.isOpen());
    assertEquals(0, budget.reservedBytes());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void tinySegmentsAreMergedSoTheConnectionHoldsLittleMoreThanItsBytes() {
    int frameLength = 4 * FrameDecoder.MAX_UNMERGED_SLACK;
    int segment = 64;
    ReceiveBudget budget = new ReceiveBudget(frameLength);
    Recorder recorder = new Recorder();
    EmbeddedChannel channel =
        frozen(new FrameDecoder(frameLength, budget, FrameGate.OPEN, FRAME_TIMEOUT), recorder);
    channel.writeInbound(header(frameLength));
    long held = 0;
    for (int i = 0; i < frameLength / segment; i++) {
      // 64 bytes in a buffer of 1 KiB: without merging the connection would hold 16x its bytes.
      ByteBuf piece = PooledByteBufAllocator.DEFAULT.directBuffer(1024);
      for (int j = 0; j < segment; j++) {
        piece.writeByte(i * segment + j);
      }
      held += piece.capacity();
      channel.writeInbound(piece);
    }
    assertEquals(1, recorder.messages.size());
    ByteBuf frame = (ByteBuf) recorder.messages.get(0);
    assertEquals(frameLength, frame.readableBytes());
    for (int i = 0; i < frameLength; i++) {
      assertEquals((byte) i, frame.getByte(frame.readerIndex() + i), "byte " + i);
    }
    assertEquals(frameLength, frame.capacity(), "one buffer the frame's size, filled in place");
    assertTrue(held > 10L * frameLength);
    frame.release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void answersPilingUpUnsentStopTheDecoderUntilThePeerReadsThem() {
    ReceiveBudget budget = new ReceiveBudget(100);
    Recorder recorder = new Recorder();
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, FrameGate.OPEN, FRAME_TIMEOUT), recorder);
    channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
    // An answer written but not flushed counts as pending outbound bytes.
    channel.write(PooledByteBufAllocator.DEFAULT.directBuffer().writeZero(32));
    assertFalse(channel.isWritable());

    channel.writeInbound(header(1).writeByte(7).writeInt(1).writeByte(8));
    assertEquals(0, recorder.messages.size(), "no frame is handed on while answers wait");
    assertFalse(channel.config().isAutoRead());

    channel.flushOutbound();
    ((ByteBuf) channel.readOutbound()).release();
    channel.runPendingTasks();
    assertTrue(channel.isWritable());
    assertEquals(2, recorder.messages.size(), "both frames once the answers left");
    assertTrue(channel.config().isAutoRead());
    recorder.messages.forEach(m -> ((ByteBuf) m).release());
    assertFalse(channel.finishAndReleaseAll());
  }

  /** Holds back every push frame until the test lets it in. */
  private static final class PushGate implements FrameGate {
    final List<Runnable> queued = new ArrayList<>();
    final List<Integer> asked = new ArrayList<>();
    int cancelled;

    @Override
    public boolean admitOrQueue(MessageType type, int frameLength, Runnable resume) {
      asked.add(frameLength);
      if (type != MessageType.PUSH_DATA_REQUEST) {
        return true;
      }
      queued.add(resume);
      return false;
    }

    @Override
    public boolean cancel(Runnable resume) {
      boolean removed = queued.remove(resume);
      cancelled += removed ? 1 : 0;
      return removed;
    }

    @Override
    public Duration maxWait() {
      return Duration.ofSeconds(1);
    }
  }

  private static ByteBuf pushHeader(int frameLength) {
    return header(frameLength).writeByte(MessageType.PUSH_DATA_REQUEST.id());
  }

  @Test
  void aFrameTheGateHoldsBackIsNeitherReadNorReservedUntilLetIn() {
    ReceiveBudget budget = new ReceiveBudget(100);
    PushGate gate = new PushGate();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = frozen(new FrameDecoder(50, budget, gate, FRAME_TIMEOUT), recorder);

    channel.writeInbound(header(4));
    assertTrue(gate.asked.isEmpty(), "the gate judges by the type byte, which has not arrived");
    channel.writeInbound(bytes(MessageType.PUSH_DATA_REQUEST.id(), 1, 2, 3));
    assertEquals(List.of(4), gate.asked);
    assertFalse(channel.config().isAutoRead(), "a held-back frame stops the connection's reads");
    assertEquals(0, budget.reservedBytes(), "and reserves nothing while it waits");
    assertEquals(0, recorder.messages.size());

    gate.queued.remove(0).run();
    channel.runPendingTasks();
    assertTrue(channel.config().isAutoRead());
    assertEquals(1, recorder.messages.size(), "let in, the frame is read and handed on");
    assertEquals(0, budget.reservedBytes());
    ((ByteBuf) recorder.messages.get(0)).release();

    channel.writeInbound(header(2).writeByte(MessageType.FETCH_DATA_REQUEST.id()).writeByte(9));
    assertEquals(2, recorder.messages.size(), "frames the gate does not hold back go through");
    ((ByteBuf) recorder.messages.get(1)).release();
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aHeldBackFrameIsReadAfterTheGatesLongestWait() {
    ReceiveBudget budget = new ReceiveBudget(100);
    PushGate gate = new PushGate();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = frozen(new FrameDecoder(50, budget, gate, FRAME_TIMEOUT), recorder);
    channel.writeInbound(pushHeader(3).writeByte(1).writeByte(2));
    assertFalse(channel.config().isAutoRead());

    channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertFalse(channel.config().isAutoRead(), "still within the gate's longest wait");
    channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    assertEquals(1, gate.cancelled, "the wait is taken back from the gate");
    assertTrue(channel.config().isAutoRead());
    assertEquals(1, recorder.messages.size(), "then the frame is read all the same");
    ((ByteBuf) recorder.messages.get(0)).release();
    assertTrue(channel.isOpen());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aConnectionClosedWhileHeldBackLeavesTheGateAndTheBudgetClear() {
    ReceiveBudget budget = new ReceiveBudget(100);
    PushGate gate = new PushGate();
    Recorder recorder = new Recorder();
    EmbeddedChannel channel = frozen(new FrameDecoder(50, budget, gate, FRAME_TIMEOUT), recorder);
    channel.writeInbound(pushHeader(30).writeZero(10));
    Runnable resume = gate.queued.get(0);

    channel.close();
    assertEquals(1, gate.cancelled);
    assertTrue(gate.queued.isEmpty());
    resume.run(); // a late hand-over finds nobody waiting
    channel.runPendingTasks();
    assertEquals(0, budget.reservedBytes());
    assertEquals(0, recorder.messages.size());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aFrameLetInByTheGateThenQueuedForTheBudgetLeavesNothingWhenClosed() {
    ReceiveBudget budget = new ReceiveBudget(50);
    PushGate gate = new PushGate();
    EmbeddedChannel channel =
        frozen(new FrameDecoder(50, budget, gate, FRAME_TIMEOUT), new Recorder());
    assertTrue(budget.reserveOrQueue(40, () -> {}), "another connection holds 40 bytes");
    channel.writeInbound(pushHeader(20));

    gate.queued.remove(0).run();
    channel.runPendingTasks();
    assertEquals(1, budget.queuedCount(), "let in by the gate, the frame queues for the budget");
    assertFalse(channel.config().isAutoRead());

    channel.close();
    assertEquals(0, budget.queuedCount());
    budget.release(40);
    assertEquals(0, budget.reservedBytes());
    assertEquals(0, gate.cancelled, "nothing was left at the gate to take back");
    assertFalse(channel.finishAndReleaseAll());
  }
}
