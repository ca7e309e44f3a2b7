package io.sluice.common.protocol;

/**
 * A peer sent bytes that break the protocol: a frame over the maximum size, an unknown message
 * type, a header that cannot be decoded. Fired by {@link FrameDecoder} and {@link MessageDecoder}
 * through {@code exceptionCaught}; the handler answers with {@link #status()} for {@link
 * #requestId()} when {@link #hasRequestId()} (request id -1 otherwise) and closes the connection,
 * because after such an error the byte stream can no longer be trusted.
 */
public final class ProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The request id sent in an answer when the offending frame's id could not be read. */
  public static final long UNKNOWN_REQUEST_ID = -1L;

  private final StatusCode status;
  private final long requestId;
  private final boolean hasRequestId;

  public ProtocolException(
      StatusCode status, long requestId, boolean hasRequestId, String message) {
    this(status, requestId, hasRequestId, message, null);
  }

  public ProtocolException(
      StatusCode status, long requestId, boolean hasRequestId, String message, Throwable cause) {
    super(message, cause);
    if (status == StatusCode.OK) {
      throw new IllegalArgumentException("a protocol error cannot have status OK");
    }
    this.status = status;
    this.requestId = hasRequestId ? requestId : UNKNOWN_REQUEST_ID;
    this.hasRequestId = hasRequestId;
  }

  public StatusCode status() {
    return status;
  }

  /** The offending frame's request id, or {@link #UNKNOWN_REQUEST_ID} when it could not be read. */
  public long requestId() {
    return requestId;
  }

  public boolean hasRequestId() {
    return hasRequestId;
  }
}
