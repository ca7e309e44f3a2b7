package io.sluice.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
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
final class TpcdsQueries {
  private static final String DIR = "tpcds/";
  private static final Pattern NAME = Pattern.compile("q(\\d+)([a-z]?)");

  private TpcdsQueries() {}

  /** Query name (e.g. {@code q14a}) to its text. */
  static Map<String, String> all() throws IOException {
    URL first = TpcdsQueries.class.getClassLoader().getResource(DIR + "q1.sql");
    if (first == null || !(first.openConnection() instanceof JarURLConnection jar)) {
      throw new IllegalStateException("no " + DIR + "q1.sql in a jar on the class path: the "
          + "spark-sql test jar is missing");
    }
    List<String> names;
    try (JarFile file = new JarFile(jar.getJarFileURL().getPath())) {
      names = file.stream().map(e -> e.getName())
          .filter(n -> n.startsWith(DIR) && n.endsWith(".sql") && n.indexOf('/', DIR.length()) < 0)
          .map(n -> n.substring(DIR.length(), n.length() - ".sql".length()))
          .filter(n -> NAME.matcher(n).matches())
          .sorted(Comparator.comparingInt(TpcdsQueries::number).thenComparing(n -> n))
          .toList();
    }
    Map<String, String> queries = new LinkedHashMap<>();
    for (String name : names) {
      try (InputStream in = TpcdsQueries.class.getClassLoader()
          .getResourceAsStream(DIR + name + ".sql")) {
        queries.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    return queries;
  }

  private static int number(String name) {
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      throw new IllegalArgumentException(name);
    }
    return Integer.parseInt(m.group(1));
  }
}
