package io.sluice.benchmark.server;

import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

/** Waiting for answers, and retrying the ones a busy server refuses. */
final class Requests {
  private static final long TIMEOUT_SECONDS = 120;
  private static final long MAX_BACKOFF_MILLIS = 64;

  private Requests() {}

  /** The future's value, a failure thrown as its own cause. */
  static <T> T await(CompletableFuture<T> future) throws Exception {
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  /**
   * Sends the request built for a fresh request id, again after a back-off while the server answers
   * with a retriable status (BUSY, NO_BUFFER), counting each retry in {@code retries}.
   */
  static <R extends ResponseMessage> R retrying(TransportClient connection,
      LongFunction<RequestMessage> request, Class<R> responseType, LongAdder retries)
      throws Exception {
    long backoff = 1;
    while (true) {
      try {
        return await(connection.request(request.apply(TransportClient.nextRequestId()),
            responseType));
      } catch (RemoteException e) {
        if (!e.isRetriable()) {
          throw e;
        }
        retries.increment();
        Thread.sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }
}
