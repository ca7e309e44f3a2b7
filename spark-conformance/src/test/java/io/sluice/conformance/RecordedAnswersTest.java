package io.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.math.BigDecimal;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Date;
import java.sql.Timestamp;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordedAnswersTest {
  @Test
  void everyValueIsReadBackAsTheObjectWritten(@TempDir Path dir) throws Exception {
    Map<String, TpcdsOutcome> answers = new LinkedHashMap<>();
    answers.put(
        "q1",
        new TpcdsOutcome(
            List.of(
                RowFactory.create(
                    1,
                    2L,
                    (short) 3,
                    (byte) 4,
                    0.1 + 0.2,
                    1.5f,
                    new BigDecimal("12.50"),
                    "tab\tnewline\n\"quote\" é",
                    true,
                    Date.valueOf("2000-02-29"),
                    Timestamp.valueOf("2001-03-04 05:06:07.123456789"),
                    null)),
            null));
    answers.put("q2", new TpcdsOutcome(null, "java.lang.ArithmeticException: divide by zero"));
    answers.put("q3", new TpcdsOutcome(List.of(), null));

    Map<String, TpcdsOutcome> read = writeAndLoad(dir, answers);

    assertEquals(answers.keySet(), read.keySet());
    for (String query : answers.keySet()) {
      assertNull(answers.get(query).difference(read.get(query)), query);
    }
    assertEquals(
        answers.get("q1").rows().get(0).toString(), read.get("q1").rows().get(0).toString());
  }

  @Test
  void aDecimalOfAnotherScaleIsADifference(@TempDir Path dir) throws Exception {
    Map<String, TpcdsOutcome> answers =
        Map.of("q1", new TpcdsOutcome(List.of(RowFactory.create(new BigDecimal("12.50"))), null));
    TpcdsOutcome read = writeAndLoad(dir, answers).get("q1");
    TpcdsOutcome other = new TpcdsOutcome(List.of(RowFactory.create(new BigDecimal("12.5"))), null);
    assertNotNull(read.difference(other));
  }

  /** Writes {@code answers} as a recording and loads it back as the test would. */
  private static Map<String, TpcdsOutcome> writeAndLoad(Path dir, Map<String, TpcdsOutcome> answers)
      throws Exception {
    String name = RecordedAnswers.name(0.1, "8", "9.9.9");
    RecordedAnswers.write(dir.resolve(name), 0.1, "8", "9.9.9", answers);
    assertEquals(answers.size() + 1, Files.readAllLines(dir.resolve(name)).size());
    try (URLClassLoader resources = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      return RecordedAnswers.load(0.1, "8", "9.9.9", resources).orElseThrow();
    }
  }
}
