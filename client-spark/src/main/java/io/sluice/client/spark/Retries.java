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
 * busy, stopping), with exponential back-off. A request that got no answer within
 * {@code transport.request.timeout} is tried once more, not for as long as a status allows: a server
 * that is silent twice is sick, and the task fails so that Spark can act. A refused or broken
 * connection is a fact, not a reason to wait: it fails at once.
 */
public final class Retries {
  private static final long MAX_WAIT_MILLIS = 2_000;

  private Retries() {}

  /** A status the server marked retriable. */
  public static boolean isRetriableStatus(Throwable t) {
    return unwrap(t) instanceof RemoteException r && r.isRetriable();
  }

  public static boolean isTimeout(Throwable t) {
    return unwrap(t) instanceof RequestTimeoutException;
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  /** Runs {@code attempt} until it succeeds, fails for good, or {@code retries} are used up. */
  public static <T> CompletableFuture<T> withRetries(Supplier<CompletableFuture<T>> attempt,
      int retries, Duration firstWait, ScheduledExecutorService timer) {
    CompletableFuture<T> result = new CompletableFuture<>();
    run(attempt, retries, true, firstWait.toMillis(), timer, result);
    return result;
  }

  private static <T> void run(Supplier<CompletableFuture<T>> attempt, int retriesLeft,
      boolean mayTimeOut, long waitMillis, ScheduledExecutorService timer,
      CompletableFuture<T> result) {
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
      } else if (retriesLeft > 0 && isRetriableStatus(error)) {
        timer.schedule(() -> run(attempt, retriesLeft - 1, mayTimeOut,
            Math.min(MAX_WAIT_MILLIS, waitMillis * 2), timer, result), waitMillis,
            TimeUnit.MILLISECONDS);
      } else if (mayTimeOut && isTimeout(error)) {
        run(attempt, retriesLeft, false, waitMillis, timer, result);
      } else {
        result.completeExceptionally(unwrap(error));
      }
    });
  }
}
