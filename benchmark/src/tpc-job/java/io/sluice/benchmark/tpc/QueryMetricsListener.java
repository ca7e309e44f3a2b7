package io.sluice.benchmark.tpc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;

/**
 * Adds up Spark's task metrics per query and per stage. A query is known by the local property
 * {@link #QUERY_PROPERTY} that the job sets before it runs the query; Spark copies it into every
 * stage the query submits. Events arrive on Spark's listener bus thread; {@link #take} is called by
 * the job's thread after the bus is drained, hence the synchronization.
 */
final class QueryMetricsListener extends SparkListener {
  static final String QUERY_PROPERTY = "sluice.tpc.query";

  private final Map<Integer, String> queryOfStage = new HashMap<>();
  private final Map<String, Map<String, StageFigures>> stagesOfQuery = new HashMap<>();

  /** Counters of one stage attempt. */
  static final class StageFigures {
    final int stageId;
    final int attempt;
    final String name;
    int tasks;
    long durationMs;
    int failedTasks;
    int retriedTasks;
    int speculativeTasks;
    long runMs;
    long cpuNs;
    long gcMs;
    long shuffleWriteBytes;
    long shuffleWriteRecords;
    long shuffleWriteNs;
    long shuffleReadBytes;
    long shuffleReadRecords;
    long fetchWaitMs;
    long spillBytes;
    long peakExecutionMemory;

    StageFigures(int stageId, int attempt, String name) {
      this.stageId = stageId;
      this.attempt = attempt;
      this.name = name;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("stageId", stageId);
      m.put("attempt", attempt);
      m.put("name", name);
      m.put("tasks", tasks);
      m.put("durationMs", durationMs);
      m.put("failedTasks", failedTasks);
      m.put("retriedTasks", retriedTasks);
      m.put("speculativeTasks", speculativeTasks);
      m.put("runMs", runMs);
      m.put("cpuMs", cpuNs / 1_000_000);
      m.put("gcMs", gcMs);
      m.put("shuffleWriteBytes", shuffleWriteBytes);
      m.put("shuffleWriteRecords", shuffleWriteRecords);
      m.put("shuffleWriteMs", shuffleWriteNs / 1_000_000);
      m.put("shuffleReadBytes", shuffleReadBytes);
      m.put("shuffleReadRecords", shuffleReadRecords);
      m.put("fetchWaitMs", fetchWaitMs);
      m.put("spillBytes", spillBytes);
      m.put("peakExecutionMemory", peakExecutionMemory);
      return m;
    }
  }

  @Override
  public synchronized void onStageSubmitted(SparkListenerStageSubmitted event) {
    String query =
        event.properties() == null ? null : event.properties().getProperty(QUERY_PROPERTY);
    if (query != null) {
      StageInfo info = event.stageInfo();
      queryOfStage.put(info.stageId(), query);
      stage(query, info.stageId(), info.attemptNumber(), info.name());
    }
  }

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted event) {
    StageInfo info = event.stageInfo();
    String query = queryOfStage.get(info.stageId());
    if (query != null && info.submissionTime().isDefined() && info.completionTime().isDefined()) {
      stage(query, info.stageId(), info.attemptNumber(), info.name()).durationMs =
          (Long) info.completionTime().get() - (Long) info.submissionTime().get();
    }
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd event) {
    String query = queryOfStage.get(event.stageId());
    if (query == null) {
      return;
    }
    StageFigures s = stage(query, event.stageId(), event.stageAttemptId(), null);
    s.tasks++;
    if (!event.taskInfo().successful()) {
      s.failedTasks++;
    }
    if (event.taskInfo().attemptNumber() > 0) {
      s.retriedTasks++;
    }
    if (event.taskInfo().speculative()) {
      s.speculativeTasks++;
    }
    TaskMetrics m = event.taskMetrics();
    if (m != null) {
      s.runMs += m.executorRunTime();
      s.cpuNs += m.executorCpuTime();
      s.gcMs += m.jvmGCTime();
      s.shuffleWriteBytes += m.shuffleWriteMetrics().bytesWritten();
      s.shuffleWriteRecords += m.shuffleWriteMetrics().recordsWritten();
      s.shuffleWriteNs += m.shuffleWriteMetrics().writeTime();
      s.shuffleReadBytes += m.shuffleReadMetrics().totalBytesRead();
      s.shuffleReadRecords += m.shuffleReadMetrics().recordsRead();
      s.fetchWaitMs += m.shuffleReadMetrics().fetchWaitTime();
      s.spillBytes += m.diskBytesSpilled();
      s.peakExecutionMemory = Math.max(s.peakExecutionMemory, m.peakExecutionMemory());
    }
  }

  private StageFigures stage(String query, int stageId, int attempt, String name) {
    return stagesOfQuery
        .computeIfAbsent(query, q -> new LinkedHashMap<>())
        .computeIfAbsent(
            stageId + "." + attempt,
            k -> new StageFigures(stageId, attempt, name == null ? "" : name));
  }

  /** The stages a query ran, in the order they were first seen; forgets them. */
  synchronized List<StageFigures> take(String query) {
    Map<String, StageFigures> stages = stagesOfQuery.remove(query);
    return stages == null ? List.of() : new ArrayList<>(stages.values());
  }
}
