package io.sluice.common.transport;

import java.io.IOException;

/** The connection closed (or could not be used) before the request was answered. */
public final class ConnectionClosedException extends IOException {
  private static final long serialVersionUID = 1L;

  public ConnectionClosedException(String message) {
    super(message);
  }

  public ConnectionClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
