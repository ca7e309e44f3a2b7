package io.sluice.server.shuffle;

import io.sluice.common.protocol.StatusCode;

/** A request that cannot be served; answered with {@link #status()} and the message. */
public final class RequestRejectedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final StatusCode status;

  public RequestRejectedException(StatusCode status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  public StatusCode status() {
    return status;
  }
}
