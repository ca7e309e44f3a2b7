package io.sluice.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * Spark's own view of a submitted job, from its listener bus: tasks that failed (and why), stage
 * re-runs (a stage submitted with an attempt number above 0), and per stage how often it was
 * submitted, how many tasks it started and on which executors its tasks succeeded. The jobs print
 * it for the integration tests to compare.
 *
 * <p>Events reach a listener asynchronously: read the counts after {@code SparkSession.stop()},
 * which delivers every pending event first.
 */
public final class JobCounts extends SparkListener {
  private int failedTasks;
  private int stageReruns;
  private final Map<Integer, Integer> submissions = new TreeMap<>();
  private final Map<Integer, Integer> taskStarts = new TreeMap<>();
  private final List<String> failures = new ArrayList<>();
  private final Map<Integer, Map<String, Integer>> successesByExecutor = new TreeMap<>();

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.reason() instanceof Success$) {
      successesByExecutor
          .computeIfAbsent(end.stageId(), id -> new TreeMap<>())
          .merge(end.taskInfo().executorId(), 1, Integer::sum);
    } else {
      failedTasks++;
      failures.add(
          "stage "
              + end.stageId()
              + "."
              + end.stageAttemptId()
              + " task "
              + end.taskInfo().index()
              + ": "
              + end.reason());
    }
  }

  @Override
  public synchronized void onTaskStart(SparkListenerTaskStart start) {
    taskStarts.merge(start.stageId(), 1, Integer::sum);
  }

  @Override
  public synchronized void onStageSubmitted(SparkListenerStageSubmitted submitted) {
    submissions.merge(submitted.stageInfo().stageId(), 1, Integer::sum);
    if (submitted.stageInfo().attemptNumber() > 0) {
      stageReruns++;
    }
  }

  /** {@code Failed tasks: N, stage re-runs: M}. */
  public synchronized String summary() {
    return "Failed tasks: " + failedTasks + ", stage re-runs: " + stageReruns;
  }

  /** {@code Stage submissions: 0=1, 1=1}: times each stage was submitted, by stage id. */
  public synchronized String stageSubmissions() {
    return "Stage submissions: " + format(submissions);
  }

  /** {@code Tasks started: 0=8, 1=8}: task attempts each stage started, by stage id. */
  public synchronized String tasksStarted() {
    return "Tasks started: " + format(taskStarts);
  }

  /**
   * {@code Stage 0 tasks succeeded by executor: 0=4, 1=4}: the executors whose tasks of that stage
   * succeeded (on a cluster, where the built-in shuffle would keep that stage's output).
   */
  public synchronized String successesByExecutor(int stage) {
    return "Stage "
        + stage
        + " tasks succeeded by executor: "
        + format(successesByExecutor.getOrDefault(stage, Map.of()));
  }

  /** One line per failed task: its stage, attempt, index and Spark's reason. */
  public synchronized List<String> failures() {
    return List.copyOf(failures);
  }

  private static String format(Map<?, Integer> counts) {
    return counts.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(", "));
  }
}
