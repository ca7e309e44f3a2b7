package io.sluice.common.transport;

import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;

/**
 * Server-side logic behind a {@link TransportServer}. Called on the connection's event loop:
 * anything slow (disk, locks held long, large computations) must move to another executor.
 */
public interface RequestHandler {

  /**
   * Handles one request and answers it exactly once through {@link TransportChannel#respond}. The
   * handler owns {@code request}: a request with a body must be released (or its body handed on) on
   * every path. A runtime exception thrown here is answered with INTERNAL_ERROR.
   */
  void handle(TransportChannel channel, RequestMessage request);

  /**
   * What decides, before a frame's body is read, whether this handler can take it now (see {@link
   * FrameGate}); asked once per connection, before its handshake.
   */
  default FrameGate frameGate(TransportChannel channel) {
    return FrameGate.OPEN;
  }

  /**
   * What may receive large frames' bodies straight into this handler's buffers (see {@link
   * BodyPlacer}), or null; asked once per connection, before its handshake, and not for connections
   * under TLS.
   */
  default BodyPlacer bodyPlacer(TransportChannel channel) {
    return null;
  }

  /** A connection completed its handshake. */
  default void channelActive(TransportChannel channel) {}

  /** A connection closed; requests still being processed may answer into the void. */
  default void channelInactive(TransportChannel channel) {}

  /**
   * A connection broke the protocol and is being closed with {@code status} (a bad frame, no
   * handshake, no shared version); for metrics. Called on the event loop.
   */
  default void protocolError(StatusCode status) {}
}
