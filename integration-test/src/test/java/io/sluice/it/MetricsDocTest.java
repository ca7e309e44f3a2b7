package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.fixtures.ProjectRoot;
import io.sluice.server.ServerOptions;
import io.sluice.testcluster.MetricsScrape;
import io.sluice.testcluster.MiniCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/metrics.md} lists exactly what the daemons export: starts a coordinator and a shuffle
 * server in this JVM, scrapes their {@code /metrics}, and checks that every {@code sluice_*} metric
 * of each is a row of its section with the exported type (and, where the scrape has samples,
 * labels), that every row is exported, that every JVM metric falls in a family the page marks as
 * that daemon's (and each family marked is exported), and that no page under {@code docs/} or the
 * README names a {@code sluice_*} metric that is not exported, and that the Grafana dashboard under
 * {@code deploy/grafana/} queries only exported metrics.
 */
class MetricsDocTest {
  private static final Pattern SLUICE_ROW =
      Pattern.compile("^\\|\\s*`(sluice_[a-z0-9_]+)`\\s*\\|\\s*(\\w+)\\s*\\|([^|]*)\\|");
  private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");
  private static final Pattern SLUICE_NAME =
      Pattern.compile("\\bsluice_(?:server|coordinator)_[a-z0-9_]+");
  private static final Pattern QUERIED_METRIC =
      Pattern.compile("\\b(?:sluice|jvm|process)_[a-z0-9_]+");

  private static MiniCluster cluster;
  private static Path hdfsDir;
  private static MetricsScrape server;
  private static MetricsScrape coordinator;
  private static Page page;

  @BeforeAll
  static void scrapeBothDaemons() throws Exception {
    // With an HDFS tier (on Hadoop's local file system), so that its metrics are exported too.
    hdfsDir = Files.createTempDirectory("sluice-metrics-hdfs");
    cluster = new MiniCluster(1, Map.of(ServerOptions.HDFS_DIR.key(), hdfsDir.toUri().toString()));
    server = MetricsScrape.fetch(cluster.servers().get(0).httpPort());
    coordinator = MetricsScrape.fetch(cluster.coordinator().httpPort());
    page = Page.read(ProjectRoot.get().resolve("docs").resolve("metrics.md"));
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    if (hdfsDir != null) {
      try (var files = Files.walk(hdfsDir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void everyServerMetricIsDocumentedAndEveryDocumentedOneExported() {
    compare("Shuffle server", server, "sluice_server_");
  }

  @Test
  void everyCoordinatorMetricIsDocumentedAndEveryDocumentedOneExported() {
    compare("Coordinator", coordinator, "sluice_coordinator_");
  }

  @Test
  void jvmMetricsFallInTheFamiliesDocumentedForEachDaemon() {
    List<String> problems = new ArrayList<>();
    checkJvmFamilies("server", server, page.jvmFamilies(0), problems);
    checkJvmFamilies("coordinator", coordinator, page.jvmFamilies(1), problems);
    report(problems);
  }

  @Test
  void docsNameNoMetricThatIsNotExported() throws IOException {
    Path root = ProjectRoot.get();
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    List<String> problems = new ArrayList<>();
    for (Path file : files) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = SLUICE_NAME.matcher(lines.get(i));
        while (m.find()) {
          if (!server.exports(m.group()) && !coordinator.exports(m.group())) {
            problems.add(
                root.relativize(file)
                    + ":"
                    + (i + 1)
                    + ": "
                    + m.group()
                    + " is exported by neither daemon");
          }
        }
      }
    }
    report(problems);
  }

  /**
   * Every query of the Grafana dashboard names metrics the daemons export: a renamed metric would
   * otherwise leave an empty panel that nobody notices until the bad day.
   */
  @Test
  void theGrafanaDashboardQueriesOnlyExportedMetrics() throws IOException {
    Path file = ProjectRoot.get().resolve("deploy/grafana/sluice.json");
    JsonNode dashboard = new ObjectMapper().readTree(file.toFile());
    List<String> expressions = new ArrayList<>();
    dashboard.findValues("expr").forEach(e -> expressions.add(e.asText()));
    assertFalse(expressions.isEmpty(), file + " has no queries");
    List<String> problems = new ArrayList<>();
    for (String expr : expressions) {
      Matcher m = QUERIED_METRIC.matcher(expr);
      boolean any = false;
      while (m.find()) {
        any = true;
        if (!server.exports(m.group()) && !coordinator.exports(m.group())) {
          problems.add("'" + expr + "' queries " + m.group() + ", which neither daemon exports");
        }
      }
      if (!any) {
        problems.add("'" + expr + "' queries no metric of the daemons");
      }
    }
    report(problems);
  }

  // ---------------------------------------------------------------------------------------------

  private static void compare(String section, MetricsScrape scrape, String prefix) {
    Map<String, Row> rows = page.rows(section);
    assertFalse(rows.isEmpty(), "docs/metrics.md has no metric rows under '## " + section + "'");
    List<String> problems = new ArrayList<>();
    Map<String, String> exported = scrape.metrics(prefix);
    for (Map.Entry<String, String> e : exported.entrySet()) {
      Row row = rows.get(e.getKey());
      if (row == null) {
        problems.add(
            e.getKey()
                + " ("
                + e.getValue()
                + ") is exported but not listed under '## "
                + section
                + "'");
        continue;
      }
      if (!row.type().equals(e.getValue())) {
        problems.add(
            e.getKey() + " is listed as a " + row.type() + " but exported as a " + e.getValue());
      }
      Set<String> labels = scrape.labels(e.getKey(), e.getValue());
      if (labels != null && !labels.equals(row.labels())) {
        problems.add(
            e.getKey() + " is listed with labels " + row.labels() + " but exported with " + labels);
      }
    }
    for (String listed : rows.keySet()) {
      if (!exported.containsKey(listed)) {
        problems.add(listed + " is listed under '## " + section + "' but not exported");
      }
    }
    report(problems);
  }

  private static void checkJvmFamilies(
      String daemon, MetricsScrape scrape, Map<String, Boolean> families, List<String> problems) {
    if (families.isEmpty()) {
      problems.add("docs/metrics.md lists no JVM families for the " + daemon);
      return;
    }
    Set<String> jvm =
        scrape.metrics("").keySet().stream()
            .filter(name -> !name.startsWith("sluice_"))
            .collect(Collectors.toCollection(TreeSet::new));
    for (String name : jvm) {
      List<String> matching =
          families.keySet().stream().filter(f -> glob(f).matcher(name).matches()).toList();
      if (matching.stream().noneMatch(families::get)) {
        problems.add(
            name
                + " is exported by the "
                + daemon
                + " but no JVM family marked 'yes' for "
                + "it covers it"
                + (matching.isEmpty() ? "" : " (marked 'no': " + matching + ")"));
      }
    }
    for (Map.Entry<String, Boolean> family : families.entrySet()) {
      boolean found = jvm.stream().anyMatch(n -> glob(family.getKey()).matcher(n).matches());
      if (family.getValue() && !found) {
        problems.add(family.getKey() + " is marked as exported by the " + daemon + " but is not");
      }
    }
  }

  private static Pattern glob(String family) {
    return Pattern.compile(
        Stream.of(family.split("\\*", -1))
            .map(Pattern::quote)
            .collect(Collectors.joining("[A-Za-z0-9_]*")));
  }

  private static void report(List<String> problems) {
    if (!problems.isEmpty()) {
      fail("docs/metrics.md and /metrics disagree:\n  " + String.join("\n  ", problems));
    }
  }

  /** A row of a metrics table: type and label names. */
  record Row(String type, Set<String> labels) {}

  /** docs/metrics.md, split into its '## ' sections. */
  record Page(Map<String, List<String>> sections) {

    static Page read(Path file) throws IOException {
      Map<String, List<String>> sections = new LinkedHashMap<>();
      List<String> current = new ArrayList<>();
      sections.put("", current);
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.startsWith("## ")) {
          current = new ArrayList<>();
          sections.put(line.substring(3).strip(), current);
        } else {
          current.add(line);
        }
      }
      return new Page(sections);
    }

    /** The sluice_* rows of a section: name to type and labels. */
    Map<String, Row> rows(String section) {
      Map<String, Row> rows = new TreeMap<>();
      for (String line : sections.getOrDefault(section, List.of())) {
        Matcher m = SLUICE_ROW.matcher(line);
        if (m.find()) {
          Set<String> labels = new TreeSet<>();
          Matcher label = BACKTICKED.matcher(m.group(3));
          while (label.find()) {
            labels.add(label.group(1));
          }
          if (rows.put(m.group(1), new Row(m.group(2), labels)) != null) {
            fail("docs/metrics.md lists " + m.group(1) + " twice under '## " + section + "'");
          }
        }
      }
      return rows;
    }

    /**
     * The JVM families of the '## JVM and process' table (first cell, one or more backticked
     * patterns), with whether the daemon's column ({@code 0} server, {@code 1} coordinator) says
     * "yes".
     */
    Map<String, Boolean> jvmFamilies(int daemon) {
      Map<String, Boolean> families = new TreeMap<>();
      for (String line : sections.getOrDefault("JVM and process", List.of())) {
        if (!line.startsWith("|") || line.startsWith("|---")) {
          continue;
        }
        String[] cells = line.split("\\|", -1);
        // "", metrics, exporter, server, coordinator, meaning, ""
        if (cells.length < 6) {
          continue;
        }
        String flag = cells[3 + daemon].strip();
        if (!flag.equals("yes") && !flag.equals("no")) {
          continue;
        }
        Matcher family = BACKTICKED.matcher(cells[1]);
        while (family.find()) {
          families.put(family.group(1), flag.equals("yes"));
        }
      }
      return families;
    }
  }
}
