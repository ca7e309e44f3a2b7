package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TpcSummaryTest {
  @Test
  void aQueryThatFailsAlikeInBothModesCountsNoFailedTaskAgainstTheRun() {
    List<RunRecord> runs = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      runs.add(
          run(
              mode,
              List.of(
                  answered("q3", 0, 0, 0),
                  failed("q90", "SparkArithmeticException: [DIVIDE_BY_ZERO]", 4))));
    }
    TpcSummary summary =
        new TpcSummary(Suite.TPCDS, List.of("q3", "q90"), List.of(Mode.values()), runs);

    assertTrue(summary.answersAgree(), summary.mismatches.toString());
    assertEquals(0, summary.failedOrRetriedTasks());
  }

  @Test
  void failedAndRetriedTasksAndStageRetriesOfAnsweredQueriesAreCountedInBothModes() {
    List<RunRecord> runs =
        List.of(
            run(Mode.BUILTIN, List.of(answered("q3", 1, 0, 0))),
            run(Mode.SLUICE, List.of(answered("q3", 0, 2, 1))));
    TpcSummary summary = new TpcSummary(Suite.TPCDS, List.of("q3"), List.of(Mode.values()), runs);

    assertEquals(4, summary.failedOrRetriedTasks());
  }

  private static RunRecord run(Mode mode, List<Map<String, Object>> queries) {
    return new RunRecord(1, mode, 0, 0, 60_000, "run.log", queries, null);
  }

  /** A query line that answered, with one stage of each attempt up to {@code stageRetries}. */
  private static Map<String, Object> answered(
      String query, long failedTasks, long retriedTasks, int stageRetries) {
    Map<String, Object> line = line(query, failedTasks, retriedTasks, stageRetries);
    line.put("rows", 20L);
    line.put("checksum", "572d19a4a");
    return line;
  }

  private static Map<String, Object> failed(String query, String error, long failedTasks) {
    Map<String, Object> line = line(query, failedTasks, 0, 0);
    line.put("error", error);
    return line;
  }

  private static Map<String, Object> line(
      String query, long failedTasks, long retriedTasks, int stageRetries) {
    List<Map<String, Object>> stages = new ArrayList<>();
    for (int attempt = 0; attempt <= stageRetries; attempt++) {
      Map<String, Object> stage = new LinkedHashMap<>();
      stage.put("attempt", (long) attempt);
      stage.put("failedTasks", attempt == 0 ? failedTasks : 0L);
      stage.put("retriedTasks", attempt == 0 ? retriedTasks : 0L);
      stages.add(stage);
    }
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("query", query);
    line.put("wallMs", 1_000L);
    line.put("stages", stages);
    return line;
  }
}
