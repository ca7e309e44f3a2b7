package io.sluice.common.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a daemon's configuration file and checks it against the daemon's option sets.
 *
 * <p>The file has one setting per line: {@code key value}, the key and value separated by white
 * space or by {@code =}. The value is the rest of the line, trimmed, and may contain spaces (a list
 * such as {@code a, b, c}); a key alone sets an empty value. A line whose first non-blank character
 * is {@code #} is a comment; blank lines are ignored. A key may appear once per file. In a value,
 * {@code ${NAME}} stands for the environment variable {@code NAME} (the scripts set {@code
 * SLUICE_HOME} and {@code SLUICE_CONF_DIR}), so that a file can name files beside it; a variable
 * that is not set is an error.
 */
public final class ConfigLoader {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

  private ConfigLoader() {}

  /**
   * Reads {@code file}, applies {@code overrides} on top (they win), and checks every value.
   *
   * @throws ConfigException listing every problem found, each with its file and line, one per line
   */
  public static SluiceConf load(
      Path file, Map<String, String> overrides, Collection<ConfigOptionSet> known) {
    return load(file, overrides, known, System.getenv());
  }

  /** As {@link #load(Path, Map, Collection)}, with {@code environment} for {@code ${NAME}}. */
  static SluiceConf load(
      Path file,
      Map<String, String> overrides,
      Collection<ConfigOptionSet> known,
      Map<String, String> environment) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("Cannot read configuration file " + file + ": " + e);
    }
    List<String> problems = new ArrayList<>();
    Map<String, RawSetting> settings = new LinkedHashMap<>();
    Map<String, Integer> lineOfKey = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      int lineNumber = i + 1;
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int end = endOfKey(line);
      String key = line.substring(0, end);
      String location = file + ", line " + lineNumber;
      String value =
          expand(separatorStripped(line.substring(end)), environment, location, problems);
      if (key.isEmpty()) {
        problems.add("No key before '=' (" + location + "): write 'key value'.");
        continue;
      }
      Integer firstLine = lineOfKey.putIfAbsent(key, lineNumber);
      if (firstLine != null) {
        problems.add(
            "Duplicate key '"
                + key
                + "' in "
                + file
                + ": line "
                + firstLine
                + " and line "
                + lineNumber
                + ".");
        continue;
      }
      settings.put(key, new RawSetting(key, value, location));
    }
    overrides.forEach((key, value) -> settings.put(key, new RawSetting(key, value, "override")));
    return ConfAssembler.assemble(List.copyOf(settings.values()), known, problems);
  }

  /**
   * Checks a map of values the same way, for configurations that come from elsewhere than a file.
   */
  public static SluiceConf fromMap(Map<String, String> raw, Collection<ConfigOptionSet> known) {
    return SluiceConf.of(raw, known);
  }

  /** Replaces each {@code ${NAME}} by the variable's value; an unset one is a problem. */
  private static String expand(
      String value, Map<String, String> environment, String location, List<String> problems) {
    Matcher m = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement = environment.get(m.group(1));
      if (replacement == null) {
        problems.add(
            "'${"
                + m.group(1)
                + "}' ("
                + location
                + ") names the environment variable "
                + m.group(1)
                + ", which is not set: set it, or write the value itself.");
        replacement = "";
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    return m.appendTail(out).toString();
  }

  private static int endOfKey(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '=' && !Character.isWhitespace(line.charAt(i))) {
      i++;
    }
    return i;
  }

  /** The value after the key: white space, an optional '=', white space, then the value. */
  private static String separatorStripped(String afterKey) {
    String rest = afterKey.strip();
    return rest.startsWith("=") ? rest.substring(1).strip() : rest;
  }
}
