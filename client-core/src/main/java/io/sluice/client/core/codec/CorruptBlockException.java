package io.sluice.client.core.codec;

/**
 * A block's bytes are not what they claim to be: compressed data that does not decode, or decodes
 * to another length than its header says. Checked, because every reader must decide what a corrupt
 * block means for it (read the replica, or fail the fetch so that Spark recomputes the map output);
 * a corrupt block is never skipped.
 */
public final class CorruptBlockException extends Exception {
  private static final long serialVersionUID = 1L;

  public CorruptBlockException(String message) {
    super(message);
  }

  public CorruptBlockException(String message, Throwable cause) {
    super(message, cause);
  }
}
