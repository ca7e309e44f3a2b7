package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.ReceiveTarget;

/**
 * Whether a server connection's current frame is received in place: once a large frame is admitted,
 * {@link FrameDecoder} offers it here, and when the {@link BodyPlacer} takes it, the bytes of the
 * frame already received are copied into the placer's buffers and the socket reads the rest
 * straight into them ({@link ReceiveTarget}, {@link PlacedBody}); the frame is then handed on as
 * the message the placement completes to, not as bytes. A frame is offered once, and only while its
 * received bytes are one buffer and at least {@link FrameDecoder#MIN_PLACED_BYTES} are still to
 * come. One per connection, on its event loop.
 */
final class FramePlacement {
  private final BodyPlacer placer;
  private final ReceiveTarget receiveTarget;

  /** Whether the current frame was offered for good. */
  private boolean decided;

  /** The current frame's body when it is received in place, or null. */
  private PlacedBody placed;

  FramePlacement(BodyPlacer placer, ReceiveTarget receiveTarget) {
    this.placer = placer;
    this.receiveTarget = receiveTarget;
  }

  /** Whether the current frame's body is being received in place. */
  boolean receiving() {
    return placed != null;
  }

  /** Whether {@code buf} is what the socket read straight into the placement's buffer. */
  boolean isOwnRead(ByteBuf buf) {
    return placed != null && placed.isOwnRead(buf);
  }

  /** The socket read {@code n} bytes straight into the placement's buffer. */
  void arrivedInPlace(int n) {
    placed.arrivedInPlace(n);
  }

  /** Copies the bytes of {@code buf} that belong to a body being placed (its first ones) in. */
  void fill(ByteBuf buf) {
    if (placed != null) {
      placed.fill(buf);
    }
  }

  /** Bytes of the placed body still to come. */
  int remaining() {
    return placed.remaining();
  }

  /**
   * Offers the frame of {@code frameLength} bytes at the front of {@code received}, once; when the
   * placer takes it, moves what arrived into the placement and points the socket's next read at it.
   */
  void offer(ReceivedBytes received, int frameLength) {
    if (decided) {
      return;
    }
    ByteBuf first = received.single();
    if (first == null || frameLength - received.bytes() < FrameDecoder.MIN_PLACED_BYTES) {
      // Little to come (nothing to gain), or a start split over buffers (the placer reads one).
      decided = true;
      return;
    }
    BodyPlacer.Placement offered =
        placer.place(first.slice(first.readerIndex(), first.readableBytes()), frameLength);
    decided = true;
    if (offered == null) {
      return;
    }
    int header = offered.headerLength();
    if (header < 1 || header > received.bytes()) {
      offered.abandon();
      throw new IllegalStateException(
          "a placement of a "
              + frameLength
              + "-byte frame took "
              + header
              + " bytes of header, of "
              + received.bytes()
              + " received");
    }
    placed = new PlacedBody(offered, frameLength - header, receiveTarget);
    received.skip(header);
    // What is left holds only this frame's bytes: fewer than the frame had arrived.
    received.drainInto(placed);
  }

  /** The whole body arrived: the message it completes to; the socket reads as usual again. */
  Object complete() {
    PlacedBody done = placed;
    placed = null;
    return done.complete();
  }

  /** The current frame was handed on: the next one is offered afresh. */
  void nextFrame() {
    decided = false;
  }

  /** The connection is closing: frees what a placement holds. */
  void abandon() {
    decided = false;
    if (placed != null) {
      PlacedBody abandoned = placed;
      placed = null;
      abandoned.abandon();
    }
  }
}
