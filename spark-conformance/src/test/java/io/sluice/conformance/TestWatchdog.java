package io.sluice.conformance;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkContext$;
import scala.Option;

/**
 * A time limit for each of Spark's tests, so that a hang fails in minutes and names its test
 * instead of holding the build: when a test runs past the limit, every thread's stack goes to
 * standard error, the active Spark context's jobs are cancelled and the test's thread interrupted,
 * which fails the test. If the thread still has not returned a minute later (stuck where interrupts
 * do not reach), the JVM halts, so that the build fails rather than waits.
 */
final class TestWatchdog {
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sluice-conformance-watchdog");
            t.setDaemon(true);
            return t;
          });
  private static final Duration GRACE = Duration.ofMinutes(1);

  private TestWatchdog() {}

  /** The limit per test: {@code sluice.conformance.test.minutes} (5 by default). */
  static Duration limit() {
    return Duration.ofMinutes(Long.getLong("sluice.conformance.test.minutes", 5));
  }

  /**
   * Runs {@code test} (named {@code name} in {@code suite}) under the time limit; on a timeout the
   * cancelled job or the interrupt fails the test, and the message on standard error names it.
   */
  static <T> T guard(String suite, String name, Supplier<T> test) {
    Duration limit = limit();
    Thread testThread = Thread.currentThread();
    AtomicReference<ScheduledFuture<?>> halt = new AtomicReference<>();
    String what = suite + ": \"" + name + "\"";
    ScheduledFuture<?> timeout =
        TIMER.schedule(
            () -> {
              System.err.println(
                  "=== "
                      + what
                      + " still runs after "
                      + limit
                      + " (a hang through "
                      + "Sluice?); cancelling its jobs and interrupting it. Its threads:");
              System.err.println(threadDump());
              Option<SparkContext> active = SparkContext$.MODULE$.getActive();
              if (active.isDefined()) {
                active.get().cancelAllJobs();
              }
              testThread.interrupt();
              halt.set(
                  TIMER.schedule(
                      () -> {
                        System.err.println(
                            "=== "
                                + what
                                + " did not return "
                                + GRACE
                                + " after its jobs were "
                                + "cancelled and its thread interrupted; halting the JVM");
                        System.err.println(threadDump());
                        Runtime.getRuntime().halt(3);
                      },
                      GRACE.toMillis(),
                      TimeUnit.MILLISECONDS));
            },
            limit.toMillis(),
            TimeUnit.MILLISECONDS);
    try {
      return test.get();
    } finally {
      if (!timeout.cancel(false)) {
        // The time limit passed: the halt is for a test that does not return, and this one did.
        while (halt.get() == null) {
          Thread.onSpinWait();
        }
        halt.get().cancel(false);
        Thread.interrupted();
      }
    }
  }

  private static String threadDump() {
    StringBuilder out = new StringBuilder();
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      out.append('"')
          .append(info.getThreadName())
          .append("\" ")
          .append(info.getThreadState())
          .append('\n');
      for (StackTraceElement frame : info.getStackTrace()) {
        out.append("    at ").append(frame).append('\n');
      }
    }
    return out.toString();
  }
}
