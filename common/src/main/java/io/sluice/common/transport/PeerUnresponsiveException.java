package io.sluice.common.transport;

import java.io.IOException;

/**
 * A peer answered neither a request nor a liveness probe within {@code transport.liveness.timeout}:
 * its process is frozen or the link to it drops packets. Callers treat it as a lost peer, like a
 * broken connection, not as a slow one.
 */
public final class PeerUnresponsiveException extends IOException {
  private static final long serialVersionUID = 1L;

  public PeerUnresponsiveException(String message) {
    super(message);
  }
}
