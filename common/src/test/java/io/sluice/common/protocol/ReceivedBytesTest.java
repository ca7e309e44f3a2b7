package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The received bytes a frame decoder holds: read across buffers, taken, skipped and merged. */
class ReceivedBytesTest {
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private static ByteBuf bytes(int capacity, int... values) {
    ByteBuf buf = ALLOC.directBuffer(capacity, capacity);
    for (int v : values) {
      buf.writeByte(v);
    }
    return buf;
  }

  @Test
  void valuesAreReadAcrossBuffersWithoutConsumingThem() {
    ReceivedBytes received = new ReceivedBytes();
    received.add(bytes(8, 0, 0));
    received.add(bytes(8, 1, 2, 9));
    assertEquals(258, received.getInt(0));
    assertEquals(9, received.getUnsignedByte(4));
    assertEquals(5, received.bytes());
    assertNull(received.single());
    received.release();
  }

  @Test
  void aTakeWithinOneBufferIsASliceAndAcrossBuffersAComposite() {
    ReceivedBytes received = new ReceivedBytes();
    received.add(bytes(8, 1, 2, 3));
    received.add(bytes(8, 4, 5));
    ByteBuf first = received.take(ALLOC, 2);
    assertFalse(first instanceof CompositeByteBuf);
    assertEquals(2, first.getByte(first.readerIndex() + 1));
    ByteBuf spanning = received.take(ALLOC, 3);
    assertTrue(spanning instanceof CompositeByteBuf);
    assertEquals(3, spanning.readableBytes());
    assertEquals(5, spanning.getByte(spanning.readerIndex() + 2));
    assertEquals(0, received.bytes());
    first.release();
    spanning.release();
    received.release();
  }

  @Test
  void skippingPastABufferFreesIt() {
    ReceivedBytes received = new ReceivedBytes();
    ByteBuf head = bytes(8, 1, 2);
    received.add(head);
    received.add(bytes(8, 3));
    received.skip(2);
    assertEquals(0, head.refCnt());
    assertEquals(3, received.getUnsignedByte(0));
    received.release();
  }

  @Test
  void sparseBuffersMergeIntoOneSizedForTheFrameWhichLaterBytesFill() {
    ReceivedBytes received = new ReceivedBytes();
    int buffers = 0;
    while (!received.sparse()) {
      received.add(bytes(16 * 1024, 7));
      buffers++;
    }
    assertTrue(buffers > 1);
    received.merge(ALLOC, 100);
    ByteBuf merged = received.single();
    assertEquals(100, merged.capacity());
    assertEquals(buffers, received.bytes());
    // Later bytes of the frame go into the merged buffer: no new buffer is queued.
    assertFalse(received.add(bytes(8, 8, 8)));
    assertSame(merged, received.single());
    assertEquals(buffers + 2, received.bytes());
    assertFalse(received.sparse());
    received.release();
    assertEquals(0, merged.refCnt());
  }

  @Test
  void bytesBeyondTheFrameMergeToTheirOwnSize() {
    ReceivedBytes received = new ReceivedBytes();
    while (!received.sparse()) {
      received.add(bytes(16 * 1024, 7, 7));
    }
    long held = received.bytes();
    received.merge(ALLOC, -1);
    assertEquals(held, received.single().capacity());
    received.release();
  }
}
