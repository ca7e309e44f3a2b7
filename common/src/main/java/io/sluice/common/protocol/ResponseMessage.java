package io.sluice.common.protocol;

/**
 * The answer to a {@link RequestMessage}. Every response header starts with {@code int64 requestId
 * | byte status | string errorMessage}; fields specific to the response follow and are meaningful
 * only when the status is {@link StatusCode#OK}.
 */
public interface ResponseMessage extends Message {
  long requestId();

  StatusCode status();

  /** Human-readable reason when {@link #status()} is not OK; empty otherwise. */
  String errorMessage();
}
