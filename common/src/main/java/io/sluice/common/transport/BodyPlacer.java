package io.sluice.common.transport;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.Message;

/**
 * A server's offer to receive a frame's body straight into buffers of its own, so that the socket
 * reads it there and it is not copied out of the network's receive buffers afterwards. Asked once a
 * frame passed its gate and reserved its length, with the frame's first bytes; a frame not placed
 * is received as usual. Not asked under TLS, whose socket reads are ciphertext.
 */
public interface BodyPlacer {
  /**
   * Called on the connection's event loop.
   *
   * @param frameStart the first bytes of the frame, from its type byte; not to be consumed or
   *     released
   * @param frameLength the frame's length, type byte included
   * @return where the rest of the frame goes, or null to receive the frame as usual (also when its
   *     first bytes do not hold the whole header)
   */
  Placement place(ByteBuf frameStart, int frameLength);

  /**
   * Buffers, in order, for the frame's bytes after its first {@link #headerLength()} (which the
   * decoder drops: the placer read them), covering the rest of the frame exactly; each written from
   * its writer index to its capacity. The placement owns them until {@link #complete} or {@link
   * #abandon}, exactly one of which is called.
   */
  interface Placement {
    int headerLength();

    ByteBuf[] buffers();

    /**
     * Bytes {@code [index, index + length)} of {@code buffers()[buffer]} were just written, in
     * order: a placer may look at them while they are still in the processor's cache.
     */
    default void arrived(int buffer, int index, int length) {}

    /** Every byte arrived: the frame as a message, which owns the buffers from now on. */
    Message complete();

    /** The frame will not arrive whole (its connection closed or timed out): frees the buffers. */
    void abandon();
  }
}
