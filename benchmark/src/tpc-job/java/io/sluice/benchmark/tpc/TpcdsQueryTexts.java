package io.sluice.benchmark.tpc;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TPC-DS query texts Spark ships with its own TPC-DS tests ({@code tpcds/q*.sql} in the
 * spark-sql test jar of the Spark line on the class path; 103 texts on Spark 3.5), in TPC-DS's
 * order: q1, q2, ..., q14a, q14b, ..., q99.
 */
public final class TpcdsQueryTexts {
  private static final String DIR = "tpcds/";

  /** A query's name as Spark's test jar spells it. */
  static final Pattern NAME = Pattern.compile("q(\\d+)([a-z]?)");

  private TpcdsQueryTexts() {}

  /** Query name (e.g. {@code q14a}) to its text. */
  public static Map<String, String> all() throws IOException {
    URL first = TpcdsQueryTexts.class.getClassLoader().getResource(DIR + "q1.sql");
    if (first == null || !(first.openConnection() instanceof JarURLConnection jar)) {
      throw new IllegalStateException(
          "no "
              + DIR
              + "q1.sql in a jar on the class path: the "
              + "spark-sql test jar is missing");
    }
    List<String> names;
    try (JarFile file = new JarFile(jar.getJarFileURL().getPath())) {
      names =
          file.stream()
              .map(e -> e.getName())
              .filter(
                  n -> n.startsWith(DIR) && n.endsWith(".sql") && n.indexOf('/', DIR.length()) < 0)
              .map(n -> n.substring(DIR.length(), n.length() - ".sql".length()))
              .filter(n -> NAME.matcher(n).matches())
              .sorted(Comparator.comparingInt(TpcdsQueryTexts::number).thenComparing(n -> n))
              .toList();
    }
    Map<String, String> queries = new LinkedHashMap<>();
    for (String name : names) {
      try (InputStream in =
          TpcdsQueryTexts.class.getClassLoader().getResourceAsStream(DIR + name + ".sql")) {
        queries.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    return queries;
  }

  /** {@code all}, or query names separated by commas, in the order given. */
  static Map<String, String> select(String names) throws IOException {
    Map<String, String> all = all();
    if (names.equals("all")) {
      return all;
    }
    Map<String, String> selected = new LinkedHashMap<>();
    List<String> unknown = new ArrayList<>();
    for (String name : names.split(",")) {
      String text = all.get(name.trim());
      if (text == null) {
        unknown.add(name.trim());
      } else {
        selected.put(name.trim(), text);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "no TPC-DS query " + unknown + " in Spark's test jar; " + "it has " + all.keySet());
    }
    return selected;
  }

  private static int number(String name) {
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      throw new IllegalArgumentException(name);
    }
    return Integer.parseInt(m.group(1));
  }
}
