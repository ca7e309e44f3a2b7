package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.ReceiveTarget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PlacedBodyTest {
  private final ReceiveTarget target = new ReceiveTarget(new AdaptiveRecvByteBufAllocator());
  private final RecvByteBufAllocator.Handle handle = target.newHandle();
  private final ByteBuf first = Unpooled.directBuffer(30, 30);
  private final ByteBuf second = Unpooled.directBuffer(70, 70);
  private final RecordingPlacement placement = new RecordingPlacement(first, second);

  @AfterEach
  void releaseBuffers() {
    if (first.refCnt() > 0) {
      first.release();
      second.release();
    }
  }

  @Test
  void copiedBytesFillTheBuffersInOrderAndTheSocketReadsTheRestInPlace() {
    PlacedBody body = new PlacedBody(placement, 100, target);
    ByteBuf received = Unpooled.buffer().writeZero(50);

    body.fill(received);

    assertEquals(50, body.remaining());
    assertEquals(List.of("0:0+30", "1:0+20"), placement.arrived);
    ByteBuf read = handle.allocate(PooledByteBufAllocator.DEFAULT);
    assertEquals(second.memoryAddress() + 20, read.memoryAddress(), "the next read goes in place");
    read.writeZero(40);
    assertTrue(body.isOwnRead(read));
    read.release();

    body.arrivedInPlace(40);
    ByteBuf lastAndNext = Unpooled.buffer().writeZero(10).writeByte(7);
    body.fill(lastAndNext);

    assertEquals(0, body.remaining());
    assertEquals(List.of("0:0+30", "1:0+20", "1:20+40", "1:60+10"), placement.arrived);
    assertEquals(1, lastAndNext.readableBytes(), "bytes past the body are left to the caller");
    assertEquals(70, second.writerIndex());
    assertSame(placement.completed, body.complete());
    ByteBuf usual = handle.allocate(PooledByteBufAllocator.DEFAULT);
    assertFalse(target.isOwnRead(usual), "reads go to the usual buffers again");
    usual.release();
    received.release();
    lastAndNext.release();
  }

  @Test
  void aPlacementWithoutRoomForExactlyTheBodyIsAbandoned() {
    assertThrows(IllegalStateException.class, () -> new PlacedBody(placement, 99, target));

    assertTrue(placement.abandoned);
    assertEquals(0, first.refCnt());
  }

  @Test
  void abandoningFreesTheBuffersAndStopsReadingIntoThem() {
    PlacedBody body = new PlacedBody(placement, 100, target);

    body.abandon();

    assertTrue(placement.abandoned);
    ByteBuf usual = handle.allocate(PooledByteBufAllocator.DEFAULT);
    assertFalse(target.isOwnRead(usual));
    usual.release();
  }

  private static final class RecordingPlacement implements BodyPlacer.Placement {
    final ByteBuf[] buffers;
    final List<String> arrived = new ArrayList<>();
    final Message completed = StatusResponse.ok(1);
    boolean abandoned;

    RecordingPlacement(ByteBuf... buffers) {
      this.buffers = buffers;
    }

    @Override
    public int headerLength() {
      return 5;
    }

    @Override
    public ByteBuf[] buffers() {
      return buffers;
    }

    @Override
    public void arrived(int buffer, int index, int length) {
      arrived.add(buffer + ":" + index + "+" + length);
    }

    @Override
    public Message complete() {
      return completed;
    }

    @Override
    public void abandon() {
      abandoned = true;
      for (ByteBuf b : buffers) {
        b.release();
      }
    }
  }
}
