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

/**
 * Reads a daemon's configuration file and checks it against the daemon's option sets.
 *
 * <p>The file has one setting per line: {@code key value}, the key and value separated by white space
 * or by {@code =}. The value is the rest of the line, trimmed, and may contain spaces (a list such as
 * {@code a, b, c}); a key alone sets an empty value. A line whose first non-blank character is
 * {@code #} is a comment; blank lines are ignored. A key may appear once per file.
 */
public final class ConfigLoader {
  private ConfigLoader() {}

  /**
   * Reads {@code file}, applies {@code overrides} on top (they win), and checks every value.
   *
   * @throws ConfigException listing every problem found, each with its file and line, one per line
   */
  public static SluiceConf load(Path file, Map<String, String> overrides, Collection<ConfigOptionSet> known) {
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
      String value = separatorStripped(line.substring(end));
      String location = file + ", line " + lineNumber;
      if (key.isEmpty()) {
        problems.add("No key before '=' (" + location + "): write 'key value'.");
        continue;
      }
      Integer firstLine = lineOfKey.putIfAbsent(key, lineNumber);
      if (firstLine != null) {
        problems.add("Duplicate key '" + key + "' in " + file + ": line " + firstLine
            + " and line " + lineNumber + ".");
        continue;
      }
      settings.put(key, new RawSetting(key, value, location));
    }
    overrides.forEach((key, value) -> settings.put(key, new RawSetting(key, value, "override")));
    return ConfAssembler.assemble(List.copyOf(settings.values()), known, problems);
  }

  /** Checks a map of values the same way, for configurations that come from elsewhere than a file. */
  public static SluiceConf fromMap(Map<String, String> raw, Collection<ConfigOptionSet> known) {
    return SluiceConf.of(raw, known);
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
