package io.sluice.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import scala.collection.JavaConverters;

/**
 * The tests of Spark's suites that cannot apply to a remote shuffle service, each with its reason,
 * from {@code inapplicable-tests.tsv} (suite, test name and reason, tab-separated): for example a
 * test that looks for the shuffle files Spark's built-in shuffle writes on the executor's disk.
 * Spark's own {@code SparkFunSuite.excluded} reports them as ignored; every other test must pass.
 */
final class InapplicableTests {
  private static final String IGNORE_TAG = "org.scalatest.Ignore";
  private static final String RESOURCE = "/inapplicable-tests.tsv";

  private InapplicableTests() {}

  /**
   * The names of the suite's inapplicable tests, for {@code SparkFunSuite.excluded}, which
   * registers each as an ignored test named "name (excluded)". Spark calls it while the suite's
   * constructor registers its tests, so it reads nothing but the list.
   */
  static scala.collection.immutable.List<String> excluded(String suite) {
    // An immutable List: the Seq that Spark 3.5 (Scala 2.12) and Spark 4 (2.13) both accept.
    return JavaConverters.asScalaBufferConverter(new ArrayList<>(reasons(suite).keySet()))
        .asScala().toList();
  }

  /** Fails unless every test the list names for {@code suite} is one of its tests. */
  static void checkListed(String suite, scala.collection.immutable.Set<String> testNames) {
    for (Map.Entry<String, String> e : reasons(suite).entrySet()) {
      if (!testNames.contains(e.getKey() + " (excluded)")) {
        throw new IllegalStateException(RESOURCE + " names \"" + e.getKey() + "\", which "
            + suite + " does not have");
      }
      System.out.println("Inapplicable to a remote shuffle service, so ignored: " + suite + ": \""
          + e.getKey() + "\": " + e.getValue());
    }
  }

  /** Test name to reason, for one suite (its simple name in Spark), in the file's order. */
  static Map<String, String> reasons(String suite) {
    Map<String, String> reasons = new LinkedHashMap<>();
    try (InputStream in = InapplicableTests.class.getResourceAsStream(RESOURCE);
        BufferedReader lines = new BufferedReader(
            new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] fields = line.split("\t");
        if (fields.length != 3 || fields[2].isBlank()) {
          throw new IllegalStateException(RESOURCE + ": a line needs a suite, a test name and a "
              + "reason, tab-separated: " + line);
        }
        if (fields[0].equals(suite)) {
          reasons.put(fields[1], fields[2]);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + RESOURCE, e);
    }
    return reasons;
  }
}
