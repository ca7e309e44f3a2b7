package io.sluice.common.config;

/**
 * Thrown by a {@link ValueKind} when a text is not a value of its kind. The detail, when there is
 * one, says what is wrong beyond "not of the accepted form" (a negative size, a duration without a
 * unit). {@link ConfigOption} turns it into a {@link ConfigException} that names the key.
 */
final class InvalidValueException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Plain "not of the accepted form", with nothing more to say. */
  InvalidValueException() {
    super(null, null, false, false);
  }

  InvalidValueException(String detail) {
    super(detail, null, false, false);
  }

  /** What is wrong beyond the form, or null. */
  String detail() {
    return getMessage();
  }
}
