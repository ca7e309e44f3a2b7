package io.sluice.common.shuffle;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries what can succeed on retry: a server that answered with a retriable status (memory full,
 * busy, stopping), with a {@link Backoff}. A request that got no answer within {@code
 * transport.request.timeout} is tried once more, not for as long as a status allows: a server that
 * is silent twice is sick. A refused or broken connection is a fact, not a reason to wait: it fails
 * at once, and callers move to another server.
 */
public final class Retries {
  private Retries() {}

  /** A status the server marked retriable. */
  public static boolean isRetriableStatus(Throwable t) {
    return unwrap(t) instanceof RemoteException r && r.isRetriable();
  }

  public static boolean isTimeout(Throwable t) {
    return unwrap(t) instanceof RequestTimeoutException;
  }

  /** Whether the server answered with {@code status}. */
  public static boolean hasStatus(Throwable t, StatusCode status) {
    return unwrap(t) instanceof RemoteException r && r.status() == status;
  }

  /** The failure inside a future's completion or execution wrapper. */
  public static Throwable unwrap(Throwable t) {
    return (t instanceof CompletionException || t instanceof ExecutionException)
            && t.getCause() != null
        ? t.getCause()
        : t;
  }

  /** Runs {@code attempt} until it succeeds, fails for good, or the retries are used up. */
  public static <T> CompletableFuture<T> withRetries(
      Supplier<CompletableFuture<T>> attempt, Backoff backoff, ScheduledExecutorService timer) {
    return withRetries(attempt, backoff, timer, () -> {});
  }

  /**
   * As {@link #withRetries(Supplier, Backoff, ScheduledExecutorService)}, and runs {@code onRetry}
   * before each attempt after the first.
   */
  public static <T> CompletableFuture<T> withRetries(
      Supplier<CompletableFuture<T>> attempt,
      Backoff backoff,
      ScheduledExecutorService timer,
      Runnable onRetry) {
    CompletableFuture<T> result = new CompletableFuture<>();
    run(attempt, backoff, 0, true, timer, onRetry, result);
    return result;
  }

  private static <T> void run(
      Supplier<CompletableFuture<T>> attempt,
      Backoff backoff,
      int retry,
      boolean mayTimeOut,
      ScheduledExecutorService timer,
      Runnable onRetry,
      CompletableFuture<T> result) {
    CompletableFuture<T> f;
    try {
      f = attempt.get();
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return;
    }
    f.whenComplete(
        (value, error) -> {
          if (error == null) {
            result.complete(value);
          } else if (retry < backoff.maxRetries() && isRetriableStatus(error)) {
            try {
              timer.schedule(
                  () -> {
                    onRetry.run();
                    run(attempt, backoff, retry + 1, mayTimeOut, timer, onRetry, result);
                  },
                  backoff.delayMillis(retry),
                  TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
              // The client is closing: no retry will run, and a caller waiting on the result must
              // not wait for ever.
              RuntimeException closed =
                  new IllegalStateException(
                      "the client closed before it could retry: " + unwrap(error).getMessage(), e);
              closed.addSuppressed(unwrap(error));
              result.completeExceptionally(closed);
            }
          } else if (mayTimeOut && isTimeout(error)) {
            onRetry.run();
            run(attempt, backoff, retry, false, timer, onRetry, result);
          } else {
            result.completeExceptionally(unwrap(error));
          }
        });
  }
}
