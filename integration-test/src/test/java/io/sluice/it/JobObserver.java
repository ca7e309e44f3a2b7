package io.sluice.it;

import io.sluice.client.spark.SluiceRelocationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * Spark's own view of a job, from its listener bus: how often each stage was submitted (a
 * re-submitted stage is a re-run), how many tasks each stage started, which tasks failed and why,
 * which a speculative copy completed. Can run an action when a chosen task event happens (to kill a
 * server mid-stage).
 */
final class JobObserver extends SparkListener {
  /** A task event of a stage, on the executor host {@code host}. */
  record TaskEvent(int stageId, int stageAttempt, boolean end, boolean success, String host) {}

  private final Map<Integer, AtomicInteger> submissions = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicInteger> taskStarts = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicInteger> speculativeSuccesses = new ConcurrentHashMap<>();
  private final List<String> failures = new ArrayList<>();
  private final List<SluiceRelocationEvent> relocations = new ArrayList<>();
  private final List<Trigger> triggers = new ArrayList<>();

  private record Trigger(Predicate<TaskEvent> when, Runnable action, boolean[] fired) {}

  /** Runs {@code action} once, on its own thread, at the first task event matching {@code when}. */
  synchronized JobObserver onceWhen(Predicate<TaskEvent> when, Runnable action) {
    triggers.add(new Trigger(when, action, new boolean[1]));
    return this;
  }

  @Override
  public synchronized void onOtherEvent(SparkListenerEvent event) {
    if (event instanceof SluiceRelocationEvent relocation) {
      relocations.add(relocation);
    }
  }

  /** The driver's moves of partitions to new servers, in the order it posted them. */
  synchronized List<SluiceRelocationEvent> relocations() {
    return List.copyOf(relocations);
  }

  @Override
  public void onStageSubmitted(SparkListenerStageSubmitted event) {
    submissions
        .computeIfAbsent(event.stageInfo().stageId(), id -> new AtomicInteger())
        .incrementAndGet();
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart event) {
    taskStarts.computeIfAbsent(event.stageId(), id -> new AtomicInteger()).incrementAndGet();
    fire(
        new TaskEvent(
            event.stageId(), event.stageAttemptId(), false, false, event.taskInfo().host()));
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd event) {
    boolean success = event.reason() == Success$.MODULE$;
    if (success && event.taskInfo().speculative()) {
      speculativeSuccesses
          .computeIfAbsent(event.stageId(), id -> new AtomicInteger())
          .incrementAndGet();
    }
    if (!success) {
      synchronized (this) {
        failures.add(
            "stage "
                + event.stageId()
                + "."
                + event.stageAttemptId()
                + " task "
                + event.taskInfo().index()
                + ": "
                + event.reason());
      }
    }
    fire(
        new TaskEvent(
            event.stageId(), event.stageAttemptId(), true, success, event.taskInfo().host()));
  }

  private synchronized void fire(TaskEvent e) {
    for (Trigger t : triggers) {
      if (!t.fired()[0] && t.when().test(e)) {
        t.fired()[0] = true;
        Thread thread = new Thread(t.action(), "job-observer-action");
        thread.setDaemon(true);
        thread.start();
      }
    }
  }

  /** How many times each stage was submitted, by stage id. */
  Map<Integer, Integer> submissions() {
    Map<Integer, Integer> result = new TreeMap<>();
    submissions.forEach((id, n) -> result.put(id, n.get()));
    return result;
  }

  /** Tasks started per stage id, all attempts together. */
  Map<Integer, Integer> taskStarts() {
    Map<Integer, Integer> result = new TreeMap<>();
    taskStarts.forEach((id, n) -> result.put(id, n.get()));
    return result;
  }

  /** Tasks that a speculative copy completed, per stage id. */
  Map<Integer, Integer> speculativeSuccesses() {
    Map<Integer, Integer> result = new TreeMap<>();
    speculativeSuccesses.forEach((id, n) -> result.put(id, n.get()));
    return result;
  }

  synchronized List<String> failures() {
    return List.copyOf(failures);
  }
}
