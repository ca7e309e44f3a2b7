package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.transport.TransportOptions;
import io.sluice.fixtures.ProjectRoot;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No phantom keys: every configuration key named in the docs ({@code docs/*.md}, {@code
 * README.md}), the shipped configuration and scripts ({@code conf/*}, {@code bin/*}) and the string
 * literals of every module's production code ({@code *}{@code /src/main/java}) is a key the typed
 * registry defines ({@link ConfigDocGenerator#discover()}).
 *
 * <p>What counts as a key is derived from the registry: a token that starts with one of the key
 * namespaces its option sets use (per set, the dotted prefix all its keys share, such as {@code
 * transport.} or {@code spark.sluice.}, else each key's first segment, such as {@code buffer.}),
 * not glued to a preceding word, dot or slash (so {@code io.sluice.server.X} and {@code
 * conf/server.conf} are not keys). Spark's own keys ({@code spark.shuffle.*}) and metric names
 * ({@code sluice_server_*}) are therefore never taken for Sluice keys. A token may also be:
 *
 * <ul>
 *   <li>a namespace named on its own ({@code spark.sluice.}, or {@code server.} ending a sentence);
 *   <li>a pattern with {@code *} ({@code spark.sluice.*}): it must match at least one key;
 *   <li>a file name, whose last segment is a file extension ({@code server.conf}).
 * </ul>
 *
 * The Spark client also reads every transport key with the {@code spark.sluice.} prefix, as {@code
 * SparkConfBridge} does.
 */
class ConfigKeysTest {
  /** Last segments that make a key-shaped token a file name. */
  private static final Set<String> FILE_EXTENSIONS =
      Set.of(
          "conf",
          "sh",
          "md",
          "jfr",
          "log",
          "out",
          "pid",
          "jar",
          "xml",
          "properties",
          "json",
          "txt",
          "csv",
          "html",
          "png",
          "gz",
          "tgz",
          "zip",
          "java",
          "class",
          "yaml");

  private static Set<String> keys;
  private static Set<String> namespaces;
  private static Pattern keyShaped;
  private static Path root;

  @BeforeAll
  static void readRegistry() {
    root = ProjectRoot.get();
    List<ConfigOptionSet> sets = ConfigDocGenerator.discover();
    keys = new TreeSet<>();
    namespaces = new TreeSet<>();
    for (ConfigOptionSet set : sets) {
      List<String> setKeys = set.options().stream().map(ConfigOption::key).toList();
      keys.addAll(setKeys);
      namespaces.addAll(namespacesOf(setKeys));
    }
    // The client reads the transport keys under its own prefix (SparkConfBridge).
    String clientPrefix =
        commonPrefix(new SluiceClientOptions().options().stream().map(ConfigOption::key).toList());
    for (ConfigOption<?> option : new TransportOptions().options()) {
      keys.add(clientPrefix + option.key());
    }
    keyShaped =
        Pattern.compile(
            "(?<![A-Za-z0-9_.$/@-])(?:"
                + namespaces.stream().map(Pattern::quote).collect(Collectors.joining("|"))
                // Possessive, then not before '/': a domain in a path or label
                // (app.kubernetes.io/name)
                // is not a key.
                + ")[A-Za-z0-9_*-]*+(?:\\.[A-Za-z0-9_*-]+)*+\\.?+(?!/)");
  }

  @Test
  void registryDefinesTheKeyNamespaces() {
    assertTrue(
        namespaces.containsAll(
            Set.of("spark.sluice.", "transport.", "coordinator.", "server.", "buffer.")),
        "namespaces derived from the registry: " + namespaces);
    assertTrue(keys.contains("spark.sluice.transport.connections.per.peer"), keys::toString);
  }

  @Test
  void docsConfAndScriptsNameOnlyDefinedKeys() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    files.addAll(
        listFiles(root.resolve("docs"), true).stream()
            .filter(p -> p.toString().endsWith(".md"))
            .toList());
    files.addAll(listFiles(root.resolve("conf"), false));
    files.addAll(listFiles(root.resolve("bin"), false));
    for (Path file : files) {
      String text = readText(file);
      if (text == null) {
        continue;
      }
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        check(lines[i], file, i + 1, problems);
      }
    }
    report(problems, "Fix the text, or define the key in its module's ConfigOptionSet.");
  }

  @Test
  void confFilesSetOnlyDefinedKeys() throws IOException {
    List<String> problems = new ArrayList<>();
    for (Path file : listFiles(root.resolve("conf"), false)) {
      if (!file.getFileName().toString().endsWith(".conf")) {
        continue;
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String key = line.split("[\\s=]", 2)[0];
        if (!keys.contains(key)) {
          problems.add(location(file, i + 1) + ": sets '" + key + "', which no option defines");
        }
      }
    }
    report(problems, "Every line of a daemon's configuration file must set a registry key.");
  }

  @Test
  void productionStringLiteralsNameOnlyDefinedKeys() throws IOException {
    List<String> problems = new ArrayList<>();
    List<Path> sources;
    try (Stream<Path> modules = Files.list(root)) {
      sources =
          modules
              .map(m -> m.resolve("src/main/java"))
              .filter(Files::isDirectory)
              .flatMap(ConfigKeysTest::javaFiles)
              .sorted()
              .toList();
    }
    assertTrue(sources.size() > 50, "found only " + sources.size() + " source files under " + root);
    for (Path source : sources) {
      String code = Files.readString(source, StandardCharsets.UTF_8);
      for (JavaLiteral literal : JavaLiteral.in(code)) {
        String[] lines = literal.text().split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
          check(lines[i], source, literal.line() + i, problems);
        }
      }
    }
    report(
        problems,
        "Name keys as OPTION.key() where the module can reach the option; otherwise "
            + "fix the literal or define the key.");
  }

  // ---------------------------------------------------------------------------------------------

  private static void check(String text, Path file, int line, List<String> problems) {
    Matcher m = keyShaped.matcher(text);
    while (m.find()) {
      String token = m.group();
      if (!isDefined(token)) {
        problems.add(
            location(file, line)
                + ": '"
                + token.replaceAll("\\.+$", "")
                + "' is not a key the registry defines");
      }
    }
  }

  /** Whether a key-shaped token names a key, a namespace, a pattern of keys, or a file. */
  static boolean isDefined(String token) {
    boolean trailingDot = token.endsWith(".");
    String t = token.replaceAll("\\.+$", "");
    String asPrefix = t + ".";
    if (namespaces.stream().anyMatch(ns -> ns.startsWith(asPrefix))) {
      return true;
    }
    String last = t.substring(t.lastIndexOf('.') + 1);
    if (FILE_EXTENSIONS.contains(last)) {
      return true;
    }
    if (t.contains("*")) {
      Pattern glob =
          Pattern.compile(
              Stream.of(t.split("\\*", -1))
                  .map(Pattern::quote)
                  .collect(Collectors.joining("[A-Za-z0-9._-]*")));
      return keys.stream().anyMatch(k -> glob.matcher(k).matches());
    }
    if (keys.contains(t)) {
      return true;
    }
    return trailingDot && keys.stream().anyMatch(k -> k.startsWith(asPrefix));
  }

  /** One option set's namespaces: the dotted prefix its keys share, else their first segments. */
  private static Set<String> namespacesOf(List<String> setKeys) {
    String common = commonPrefix(setKeys);
    if (!common.isEmpty()) {
      return Set.of(common);
    }
    return setKeys.stream()
        .map(k -> k.substring(0, k.indexOf('.') + 1))
        .filter(ns -> !ns.isEmpty())
        .collect(Collectors.toSet());
  }

  /** The longest prefix ending with '.' that every key has, or "". */
  private static String commonPrefix(List<String> setKeys) {
    if (setKeys.isEmpty()) {
      return "";
    }
    String prefix = setKeys.get(0);
    for (String key : setKeys) {
      int n = 0;
      while (n < prefix.length() && n < key.length() && prefix.charAt(n) == key.charAt(n)) {
        n++;
      }
      prefix = prefix.substring(0, n);
    }
    return prefix.substring(0, prefix.lastIndexOf('.') + 1);
  }

  private static void report(List<String> problems, String advice) {
    if (!problems.isEmpty()) {
      fail(
          problems.size()
              + " configuration key(s) named that the registry does not define:\n  "
              + String.join("\n  ", problems)
              + "\n"
              + advice
              + "\nDefined keys: "
              + keys);
    }
  }

  private static String location(Path file, int line) {
    return root.relativize(file) + ":" + line;
  }

  private static List<Path> listFiles(Path dir, boolean recursive) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = recursive ? Files.walk(dir) : Files.list(dir)) {
      return files.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).toList();
    }
  }

  private static Stream<Path> javaFiles(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList().stream();
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + dir, e);
    }
  }

  /** The file as UTF-8 text with \n line ends, or null when it is not text. */
  private static String readText(Path file) throws IOException {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      return text.indexOf('\0') >= 0 ? null : text.replace("\r\n", "\n");
    } catch (MalformedInputException e) {
      return null;
    }
  }

  /** A string literal or text block of Java source, with the line it starts on. */
  record JavaLiteral(String text, int line) {

    /** The string literals and text blocks of {@code code}, skipping comments and char literals. */
    static List<JavaLiteral> in(String code) {
      List<JavaLiteral> literals = new ArrayList<>();
      int line = 1;
      int i = 0;
      int n = code.length();
      while (i < n) {
        char c = code.charAt(i);
        if (c == '\n') {
          line++;
          i++;
        } else if (code.startsWith("//", i)) {
          while (i < n && code.charAt(i) != '\n') {
            i++;
          }
        } else if (code.startsWith("/*", i)) {
          int end = code.indexOf("*/", i + 2);
          end = end < 0 ? n : end + 2;
          line += count(code, i, end);
          i = end;
        } else if (code.startsWith("\"\"\"", i)) {
          int start = i + 3;
          int j = start;
          while (j < n && !(code.startsWith("\"\"\"", j) && code.charAt(j - 1) != '\\')) {
            j++;
          }
          literals.add(new JavaLiteral(code.substring(start, Math.min(j, n)), line));
          int end = Math.min(j + 3, n);
          line += count(code, i, end);
          i = end;
        } else if (c == '"' || c == '\'') {
          int j = i + 1;
          while (j < n && code.charAt(j) != c && code.charAt(j) != '\n') {
            j += code.charAt(j) == '\\' ? 2 : 1;
          }
          if (c == '"') {
            literals.add(new JavaLiteral(code.substring(i + 1, Math.min(j, n)), line));
          }
          i = j + 1;
        } else {
          i++;
        }
      }
      return literals;
    }

    private static int count(String code, int from, int to) {
      int lines = 0;
      for (int k = from; k < to; k++) {
        if (code.charAt(k) == '\n') {
          lines++;
        }
      }
      return lines;
    }
  }
}
