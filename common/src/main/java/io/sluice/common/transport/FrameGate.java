package io.sluice.common.transport;

import io.sluice.common.protocol.MessageType;
import java.time.Duration;

/**
 * A server's say, before a frame's body is read, on whether it can take the frame now. A frame the
 * gate holds back is not read: its connection stops reading, so its bytes wait in the peer's socket
 * (TCP flow control) rather than being received only to be refused and sent again. Reading resumes
 * when the gate lets the frame in or after {@link #maxWait()}, whichever comes first; the frame is
 * then read and handled like any other, and may still be refused.
 */
public interface FrameGate {
  /** Lets every frame in at once. */
  FrameGate OPEN =
      new FrameGate() {
        @Override
        public boolean admitOrQueue(MessageType type, int frameLength, Runnable resume) {
          return true;
        }

        @Override
        public boolean cancel(Runnable resume) {
          return false;
        }

        @Override
        public Duration maxWait() {
          return Duration.ZERO;
        }
      };

  /**
   * Called on the connection's event loop once a frame's length and type byte arrived.
   *
   * @param type the frame's message type, or null for a type byte no message has (such a frame is
   *     let in, to be refused by the message decoder)
   * @param frameLength the frame's length, type byte included
   * @param resume what to run, on any thread, once the frame may be read
   * @return true to read the frame now; false when {@code resume} was queued, to be run unless
   *     {@link #cancel} takes it back first
   */
  boolean admitOrQueue(MessageType type, int frameLength, Runnable resume);

  /**
   * Takes back a queued {@code resume} (its connection closed, or waited {@link #maxWait()}).
   *
   * @return false when it was run already, or is about to be
   */
  boolean cancel(Runnable resume);

  /** The longest a frame is held back before it is read all the same. */
  Duration maxWait();
}
