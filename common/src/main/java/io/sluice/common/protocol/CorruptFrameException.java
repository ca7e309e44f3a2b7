package io.sluice.common.protocol;

/**
 * A frame whose header cannot be decoded: a length field that does not fit the frame, an invalid
 * enum byte, a string that is not UTF-8. The connection that sent it is closed after an error
 * answer.
 */
public class CorruptFrameException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CorruptFrameException(String message) {
    super(message);
  }
}
