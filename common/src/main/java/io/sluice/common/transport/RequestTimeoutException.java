package io.sluice.common.transport;

import java.io.IOException;

/** A request got no answer within {@code transport.request.timeout}. */
public final class RequestTimeoutException extends IOException {
  private static final long serialVersionUID = 1L;

  public RequestTimeoutException(String message) {
    super(message);
  }
}
