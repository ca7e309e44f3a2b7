package io.sluice.coordinator.admin;

/** An admin command that could not be done; its message is what the operator reads. */
final class AdminException extends Exception {
  private static final long serialVersionUID = 1L;

  AdminException(String message) {
    super(message);
  }
}
