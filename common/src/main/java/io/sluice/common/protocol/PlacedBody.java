package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.ReceiveTarget;

/**
 * The body of one frame being received into the buffers a {@link BodyPlacer} gave for it: bytes
 * that arrived in the connection's usual buffers are copied in, and the socket's next reads are
 * pointed at the first of its buffers with room ({@link ReceiveTarget}), so the rest lands there
 * without a copy. Every byte is reported to the placement as it arrives. Event loop only.
 */
final class PlacedBody {
  private final BodyPlacer.Placement placement;
  private final ByteBuf[] buffers;
  private final ReceiveTarget receiveTarget;
  private int index;
  private int remaining;

  /**
   * @param bodyLength what the placement's buffers must hold: the frame's length less the header
   *     the placer read
   * @throws IllegalStateException when the buffers do not have room for exactly that; the placement
   *     is abandoned first
   */
  PlacedBody(BodyPlacer.Placement placement, int bodyLength, ReceiveTarget receiveTarget) {
    ByteBuf[] buffers = placement.buffers();
    long room = 0;
    for (ByteBuf b : buffers) {
      room += b.writableBytes();
    }
    if (room != bodyLength) {
      placement.abandon();
      throw new IllegalStateException(
          "a placement for a body of " + bodyLength + " bytes has room for " + room);
    }
    this.placement = placement;
    this.buffers = buffers;
    this.receiveTarget = receiveTarget;
    this.remaining = bodyLength;
    targetNextBuffer();
  }

  /** Bytes of the body still to come. */
  int remaining() {
    return remaining;
  }

  /** Whether {@code buf} is what the socket read into this body's current buffer. */
  boolean isOwnRead(ByteBuf buf) {
    return receiveTarget.isOwnRead(buf);
  }

  /** Copies the bytes of {@code src} that belong to the body (its first ones) into its buffers. */
  void fill(ByteBuf src) {
    while (remaining > 0 && src.isReadable()) {
      ByteBuf into = buffers[index];
      int n = Math.min(src.readableBytes(), into.writableBytes());
      int from = into.writerIndex();
      into.writeBytes(src, n);
      arrived(from, n);
    }
  }

  /** The socket read {@code n} bytes straight into the current buffer. */
  void arrivedInPlace(int n) {
    ByteBuf into = buffers[index];
    int from = into.writerIndex();
    into.writerIndex(from + n);
    arrived(from, n);
  }

  /** The whole body arrived: the message it completes to; the socket reads as usual again. */
  Object complete() {
    receiveTarget.clear();
    return placement.complete();
  }

  /** The frame will not be completed: frees what the placement holds. */
  void abandon() {
    receiveTarget.clear();
    placement.abandon();
  }

  private void arrived(int from, int n) {
    placement.arrived(index, from, n);
    remaining -= n;
    targetNextBuffer();
  }

  /** Points the next socket read at the first buffer with room, or back at the usual ones. */
  private void targetNextBuffer() {
    while (index < buffers.length && !buffers[index].isWritable()) {
      index++;
    }
    if (index < buffers.length) {
      receiveTarget.set(buffers[index]);
    } else {
      receiveTarget.clear();
    }
  }
}
