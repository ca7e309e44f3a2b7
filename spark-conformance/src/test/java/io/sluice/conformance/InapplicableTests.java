package io.sluice.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import scala.Option;
import scala.collection.JavaConverters;
import scala.collection.immutable.Map;
import scala.collection.immutable.Set;

/**
 * The tests of Spark's suites that cannot apply to a remote shuffle service, each with its reason,
 * from {@code inapplicable-tests.tsv} (suite, test name and reason, tab-separated): for example a
 * test that looks for the shuffle files Spark's built-in shuffle writes on the executor's disk.
 * Each is tagged {@code org.scalatest.Ignore}, which ScalaTest reports as ignored (on every Spark
 * line: Spark 3.3 and 3.4 have no {@code SparkFunSuite.excluded}); every other test must pass.
 */
final class InapplicableTests {
  private static final String IGNORE_TAG = "org.scalatest.Ignore";
  private static final String RESOURCE = "/inapplicable-tests.tsv";

  private InapplicableTests() {}

  /**
   * The suite's tags ({@code Suite.tags}: test name to tag names) with the ignore tag added to each
   * inapplicable test. Only calls whose Java signatures Scala 2.12 and 2.13 both keep (Scala's
   * {@code Set.+} is not one: Java sees another return type than Scala compiles).
   */
  static Map<String, Set<String>> withIgnored(String suite, Map<String, Set<String>> tags) {
    Map<String, Set<String>> result = tags;
    for (String test : reasons(suite).keySet()) {
      java.util.Set<String> names = new LinkedHashSet<>();
      Option<Set<String>> own = tags.get(test);
      if (own.isDefined()) {
        names.addAll(JavaConverters.setAsJavaSetConverter(own.get()).asJava());
      }
      names.add(IGNORE_TAG);
      result =
          result.updated(test, JavaConverters.asScalaSetConverter(names).asScala().<String>toSet());
    }
    return result;
  }

  /** Fails unless every test the list names for {@code suite} is one of its tests. */
  static void checkListed(String suite, Set<String> testNames) {
    for (java.util.Map.Entry<String, String> e : reasons(suite).entrySet()) {
      if (!testNames.contains(e.getKey())) {
        throw new IllegalStateException(
            RESOURCE + " names \"" + e.getKey() + "\", which " + suite + " does not have");
      }
      System.out.println(
          "Inapplicable to a remote shuffle service, so ignored: "
              + suite
              + ": \""
              + e.getKey()
              + "\": "
              + e.getValue());
    }
  }

  /** Test name to reason, for one suite (its simple name in Spark), in the file's order. */
  static java.util.Map<String, String> reasons(String suite) {
    java.util.Map<String, String> reasons = new LinkedHashMap<>();
    try (InputStream in = InapplicableTests.class.getResourceAsStream(RESOURCE);
        BufferedReader lines =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] fields = line.split("\t");
        if (fields.length != 3 || fields[2].isBlank()) {
          throw new IllegalStateException(
              RESOURCE
                  + ": a line needs a suite, a test name and a "
                  + "reason, tab-separated: "
                  + line);
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
