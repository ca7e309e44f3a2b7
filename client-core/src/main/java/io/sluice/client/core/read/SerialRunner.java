package io.sluice.client.core.read;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Runs tasks one at a time, in submission order, on whichever submitting thread finds it idle: the
 * state a pipeline's tasks touch needs no lock, and a task that submits another (a request whose
 * answer completes at once) never re-enters a half-done one. Tasks must be short and never block.
 */
final class SerialRunner implements Executor {
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean();
  private final Consumer<Throwable> onFailure;

  /**
   * @param onFailure runs (serially too) with whatever a task throws
   */
  SerialRunner(Consumer<Throwable> onFailure) {
    this.onFailure = onFailure;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    // Re-check after letting go: a task added while this thread drained found the flag taken.
    while (!tasks.isEmpty() && running.compareAndSet(false, true)) {
      try {
        Runnable next;
        while ((next = tasks.poll()) != null) {
          runOne(next);
        }
      } finally {
        running.set(false);
      }
    }
  }

  private void runOne(Runnable task) {
    try {
      task.run();
    } catch (Throwable t) {
      onFailure.accept(t);
    }
  }
}
