package io.sluice.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.common.config.ConfigDocGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fails when the checked-in {@code docs/configuration.md} is not what the option sets on the class
 * path generate, so that a new or changed option cannot ship undocumented. With {@code
 * -Dsluice.docs.update=true} it writes the page instead.
 */
class ConfigurationDocTest {
  static final String REGENERATE_COMMAND =
      "mvn -B -o -pl integration-test -am test"
          + " -Dtest=ConfigurationDocTest -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.docs.update=true";

  @Test
  void checkedInPageMatchesTheOptionSets() throws IOException {
    String generated = ConfigDocGenerator.generate(ConfigDocGenerator.discover());
    Path page = projectRoot().resolve("docs").resolve("configuration.md");
    if (Boolean.getBoolean("sluice.docs.update")) {
      Files.createDirectories(page.getParent());
      Files.writeString(page, generated, StandardCharsets.UTF_8);
      return;
    }
    if (!Files.exists(page)) {
      fail(page + " does not exist. Generate it with:\n  " + REGENERATE_COMMAND);
    }
    String checkedIn = Files.readString(page, StandardCharsets.UTF_8).replace("\r\n", "\n");
    if (!checkedIn.equals(generated)) {
      fail(
          page
              + " is stale: "
              + firstDifference(checkedIn, generated)
              + "Regenerate it from the option classes with:\n  "
              + REGENERATE_COMMAND);
    }
  }

  /** The first line that differs, with a little of what follows on both sides. */
  private static String firstDifference(String checkedIn, String generated) {
    List<String> old = checkedIn.lines().toList();
    List<String> current = generated.lines().toList();
    int line = 0;
    while (line < old.size() && line < current.size() && old.get(line).equals(current.get(line))) {
      line++;
    }
    if (line == old.size() && line == current.size()) {
      return "the files differ only in the newline that ends the last line\n";
    }
    return "from line "
        + (line + 1)
        + " the page has\n"
        + excerpt(old, line)
        + "but the option classes generate\n"
        + excerpt(current, line);
  }

  private static String excerpt(List<String> lines, int from) {
    if (from >= lines.size()) {
      return "  (end of file)\n";
    }
    StringBuilder text = new StringBuilder();
    for (int i = from; i < Math.min(from + 3, lines.size()); i++) {
      text.append("  ").append(lines.get(i)).append('\n');
    }
    return text.toString();
  }

  /**
   * {@code sluice.project.root} (set by surefire), else the nearest directory above holding docs/.
   */
  private static Path projectRoot() {
    String configured = System.getProperty("sluice.project.root");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("docs"))) {
        return dir;
      }
    }
    return fail(
        "Cannot find the project root above "
            + start
            + ": no docs/ directory;"
            + " set -Dsluice.project.root=<checkout>");
  }
}
