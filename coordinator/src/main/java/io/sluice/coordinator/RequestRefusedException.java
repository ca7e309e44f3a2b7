package io.sluice.coordinator;

import io.sluice.common.protocol.StatusCode;
import java.util.Objects;

/**
 * A request the coordinator will not carry out, with the status code it is answered with and a
 * message meant for the person who reads the client's error (what was wrong, which setting to
 * change).
 */
public final class RequestRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final StatusCode status;

  public RequestRefusedException(StatusCode status, String message) {
    super(message, null, false, false);
    if (Objects.requireNonNull(status, "status") == StatusCode.OK) {
      throw new IllegalArgumentException("a refusal needs a status other than OK");
    }
    this.status = status;
  }

  public StatusCode status() {
    return status;
  }
}
