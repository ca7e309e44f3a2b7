package io.sluice.common.transport;

import io.sluice.common.protocol.StatusCode;
import java.io.IOException;

/** The peer answered a request with a status other than OK. */
public final class RemoteException extends IOException {
  private static final long serialVersionUID = 1L;
  private final StatusCode status;

  public RemoteException(StatusCode status, String message) {
    super(status + ": " + message);
    this.status = status;
  }

  public StatusCode status() {
    return status;
  }

  /**
   * True when the same request may succeed after a back-off (the server was busy or out of memory).
   */
  public boolean isRetriable() {
    return status.isRetriable();
  }
}
