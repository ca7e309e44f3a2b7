package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.MiniCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4.1 and later compare a row checksum of each map's output across attempts of the map to
 * find non-deterministic stages. The Spark 4 client must report the same checksum in its {@code
 * MapStatus} as the built-in shuffle: a SQL job with the checksums on, submitted with {@code
 * SparkSubmit} on the Spark 4 installation the build assembles, once with the built-in shuffle and
 * once through Sluice with only the Spark 4 client jar added, gives the same answer and the same
 * checksum for every map of every shuffle.
 */
class Spark4ChecksumTest {
  private static final Pattern CHECKSUMS = Pattern.compile("Map checksums of shuffle \\d+:.*");

  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void mapStatusesCarryTheBuiltInShufflesRowChecksums() throws Exception {
    Daemons.Result builtIn = submit(List.of());
    String sluiceOutput;
    try (MiniCluster cluster = new MiniCluster(2, Map.of())) {
      Daemons.Result sluice = submit(SubmittedJob.throughSluice(cluster));
      sluiceOutput = sluice.output();
      assertEquals(0, sluice.exitCode(), sluiceOutput);
      SubmittedJob.assertNoLeak(sluice);
      assertTrue(cluster.pushedBytes() > 0, "nothing went through Sluice: " + sluiceOutput);
    }
    assertEquals(0, builtIn.exitCode(), builtIn.output());
    assertTrue(
        sluiceOutput.contains(
            "Shuffle manager: io.sluice.client.spark.SluiceShuffleManager, " + "Spark 4."),
        sluiceOutput);

    assertEquals(line("Answer: .*", builtIn.output()), line("Answer: .*", sluiceOutput));
    List<String> expected = lines(builtIn.output());
    assertFalse(expected.isEmpty(), builtIn.output());
    assertTrue(
        expected.stream().noneMatch(l -> l.matches(".*: (0 ?)+")),
        "the built-in shuffle computed no checksums: " + expected);
    assertEquals(expected, lines(sluiceOutput));
  }

  private Daemons.Result submit(List<String> conf) throws Exception {
    return SubmittedJob.run(dir, "4", "local[2]", "io.sluice.examples.MapChecksumsJob", conf);
  }

  private static String line(String regex, String output) {
    Matcher m = Pattern.compile(regex).matcher(output);
    assertTrue(m.find(), "no line matching " + regex + " in:\n" + output);
    return m.group();
  }

  private static List<String> lines(String output) {
    return output.lines().filter(l -> CHECKSUMS.matcher(l).matches()).toList();
  }
}
