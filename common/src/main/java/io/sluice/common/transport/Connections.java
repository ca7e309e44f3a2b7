package io.sluice.common.transport;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Pooled connections that authenticate one way: a {@link TransportClientFactory} with its own
 * credentials, or a view of one with others ({@link TransportClientFactory#as}). What pushes, reads
 * and control calls take, so that they never choose credentials themselves.
 */
public interface Connections {

  /**
   * A pooled, handshaken and authenticated connection to {@code host:port}, without blocking; fails
   * with an {@link IOException} (a {@link RemoteException} when the server refused).
   */
  CompletableFuture<TransportClient> getClientAsync(String host, int port);

  /**
   * Whether this JVM suspects {@code host:port} of being frozen or cut off: a connection to it with
   * requests outstanding went silent for half of {@code transport.liveness.timeout}, and its
   * liveness probe is under way or went unanswered. False where nothing watches liveness.
   */
  default boolean suspects(String host, int port) {
    return false;
  }

  /** The same, waiting at most {@code transport.connect.timeout}. */
  default TransportClient getClient(String host, int port)
      throws IOException, InterruptedException {
    try {
      return getClientAsync(host, port).get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io
          ? io
          : new IOException("cannot connect to " + host + ":" + port, cause);
    }
  }
}
