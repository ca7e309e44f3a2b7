package io.sluice.client.spark;

import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries what can succeed on retry: a server that answered with a retriable status (memory full,
 * busy, stopping) or did not answer in time. A refused or broken connection is a fact, not a reason
 * to wait: it fails at once.
 */
public final class Retries {
  private static final long MAX_WAIT_MILLIS = 2_000;

  private Retries() {}

  public static boolean isRetriable(Throwable t) {
    Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    return (cause instanceof RemoteException r && r.isRetriable())
        || cause instanceof RequestTimeoutException;
  }

  /** Runs {@code attempt} until it succeeds, fails for good, or {@code retries} are used up. */
  public static <T> CompletableFuture<T> withRetries(Supplier<CompletableFuture<T>> attempt,
      int retries, Duration firstWait, ScheduledExecutorService timer) {
    CompletableFuture<T> result = new CompletableFuture<>();
    run(attempt, retries, firstWait.toMillis(), timer, result);
    return result;
  }

  private static <T> void run(Supplier<CompletableFuture<T>> attempt, int retriesLeft,
      long waitMillis, ScheduledExecutorService timer, CompletableFuture<T> result) {
    CompletableFuture<T> f;
    try {
      f = attempt.get();
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return;
    }
    f.whenComplete((value, error) -> {
      if (error == null) {
        result.complete(value);
      } else if (retriesLeft > 0 && isRetriable(error)) {
        timer.schedule(() -> run(attempt, retriesLeft - 1,
            Math.min(MAX_WAIT_MILLIS, waitMillis * 2), timer, result), waitMillis,
            TimeUnit.MILLISECONDS);
      } else {
        result.completeExceptionally(error instanceof CompletionException && error.getCause() != null
            ? error.getCause() : error);
      }
    });
  }
}
