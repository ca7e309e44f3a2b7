package io.sluice.server.storage;

/**
 * No local disk could store a batch of blocks: every directory is full or failing. The blocks were
 * not written anywhere (nothing of the batch is readable); the caller still owns them and answers
 * requests with {@code STORAGE_UNAVAILABLE} instead of acknowledging data it cannot keep.
 */
public final class StorageUnavailableException extends Exception {

  public StorageUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
