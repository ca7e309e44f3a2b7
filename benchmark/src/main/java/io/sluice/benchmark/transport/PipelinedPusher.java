package io.sluice.benchmark.transport;

import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Pushes on one connection from its own thread, as a map task does: requests are sent without
 * waiting for answers, at most {@link PushWorkload#window()} outstanding at a time.
 */
final class PipelinedPusher {
  private static final long DRAIN_TIMEOUT_SECONDS = 60;

  private final TransportClient client;
  private final PushWorkload workload;
  private final Semaphore window;
  private final Thread thread;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile boolean running = true;

  PipelinedPusher(TransportClient client, PushWorkload workload, String threadName) {
    this.client = client;
    this.workload = workload;
    this.window = new Semaphore(workload.window());
    this.thread = new Thread(this::pushUntilStopped, threadName);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void pushUntilStopped() {
    try {
      while (running) {
        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        if (!running) {
          window.release();
          break;
        }
        PushDataRequest request = workload.next(TransportClient.nextRequestId());
        client
            .request(request, StatusResponse.class)
            .whenComplete(
                (response, error) -> {
                  if (error != null) {
                    fail(error);
                  }
                  window.release();
                });
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      fail(e);
    }
  }

  private void fail(Throwable error) {
    failure.compareAndSet(null, error);
    running = false;
  }

  /**
   * Stops sending and waits until every request sent has been answered, then frees the workload's
   * buffers.
   *
   * @throws IllegalStateException when a request failed, or answers stopped coming
   */
  void stop() throws InterruptedException {
    running = false;
    thread.join();
    boolean drained = window.tryAcquire(workload.window(), DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (drained) {
      workload.close();
    }
    Throwable error = failure.get();
    if (error != null) {
      throw new IllegalStateException("a push on " + client + " failed: " + error, error);
    }
    if (!drained) {
      throw new IllegalStateException(
          "requests on " + client + " still unanswered after " + DRAIN_TIMEOUT_SECONDS + " s");
    }
  }
}
