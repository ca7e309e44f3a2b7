package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The README's main command, as a user runs it, on a Spark line: coordinator and servers started
 * with the bin/ scripts, the example job submitted with {@code SparkSubmit} in its own process with
 * only that line's shaded jar added, and the result checked against a computation in this test.
 */
class SparkSubmitTest {
  private static final long RECORDS = 400_000;
  private static final int KEYS = 5_000;

  @TempDir Path dir;

  /**
   * Spark 3.4 and 3.3 run here only with {@code -Pspark-lines-full}: by default {@link
   * SparkLinesSuiteTest} submits those lines' jobs with SparkSubmit, and the scripts choose a line
   * the same way for each.
   */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"3.5", "4", "3.4", "3.3"},
      byDefault = {"3.5", "4"})
  @Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
  void exampleJobRunsThroughSluiceFromTheScripts(String line) throws Exception {
    String versionPrefix = line + ".";
    Daemons.Result run = runExample(line);
    assertEquals(0, run.exitCode(), run.output());
    Matcher version = Pattern.compile("on Spark (\\S+)").matcher(run.output());
    assertTrue(version.find(), run.output());
    assertTrue(version.group(1).startsWith(versionPrefix), run.output());
    Matcher result =
        Pattern.compile("Result: (\\d+) keys, checksum (-?\\d+)").matcher(run.output());
    assertTrue(result.find(), run.output());
    assertEquals(KEYS, Integer.parseInt(result.group(1)));
    assertEquals(expectedChecksum(RECORDS, KEYS), Long.parseLong(result.group(2)), run.output());
    Matcher bytes = Pattern.compile("Bytes that went through Sluice: (\\d+)").matcher(run.output());
    assertTrue(bytes.find(), run.output());
    assertTrue(Long.parseLong(bytes.group(1)) > 0, run.output());
    assertTrue(run.output().contains("SluiceShuffleManager"), run.output());
  }

  /** What ShuffleExample computes: the sum over keys of key * 31 + the sum of the key's values. */
  static long expectedChecksum(long records, int keys) {
    Set<Integer> seen = new HashSet<>();
    long checksum = 0;
    long perSlice = records / 8;
    for (long v = 0; v < 8 * perSlice; v++) {
      int key = (int) Math.floorMod(v * 2654435761L, (long) keys);
      if (seen.add(key)) {
        checksum += key * 31L;
      }
      checksum += v;
    }
    return checksum;
  }

  /**
   * Runs the README's main command on {@code line}. Another process may take one of the six ports
   * between this test's check and the script's own; the script then stops before it starts
   * anything, saying so, and the run is tried again on another range.
   */
  private Daemons.Result runExample(String line) throws Exception {
    for (int attempt = 1; ; attempt++) {
      int base = Daemons.freePorts(6);
      Daemons.Result run =
          Daemons.inProject()
              .run(
                  Map.of(
                      "SLUICE_SPARK", line,
                      "SLUICE_EXAMPLE_DIR", dir.resolve("example").toString(),
                      "SLUICE_EXAMPLE_PORT", String.valueOf(base)),
                  "bin/run-example.sh",
                  String.valueOf(RECORDS),
                  String.valueOf(KEYS));
      if (attempt == 5 || !run.output().contains("is in use; set SLUICE_EXAMPLE_PORT")) {
        return run;
      }
    }
  }
}
