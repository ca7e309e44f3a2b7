package io.sluice.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigDocGeneratorTest {
  private static final String TABLE_HEADER =
      "| Key | Default | Accepted values | Description | Since |\n|---|---|---|---|---|\n";

  @TempDir Path dir;

  @Test
  void thePageHasATitleAnIntroductionAndOneTablePerSet() {
    String page =
        ConfigDocGenerator.generate(List.of(new TestServerOptions(), new TestClientOptions()));
    assertTrue(page.startsWith("# Configuration\n"), page);
    assertTrue(page.contains("`key value`"), page);
    assertTrue(page.contains("**Sizes**"), page);
    assertTrue(page.contains("**Durations**"), page);
    int server =
        page.indexOf(
            "\n## "
                + TestServerOptions.TITLE
                + "\n\nOptions of a made-up server, for tests.\n\n"
                + TABLE_HEADER);
    int client =
        page.indexOf(
            "\n## Test client\n\nOptions of a made-up client, for tests.\n\n" + TABLE_HEADER);
    assertTrue(server > 0, page);
    assertTrue(client > server, page);
    assertTrue(page.endsWith("|\n"), page);
  }

  @Test
  void eachOptionIsOneRow() {
    String page =
        ConfigDocGenerator.generate(List.of(new TestServerOptions(), new TestClientOptions()));
    List<String> rows = page.lines().filter(line -> line.startsWith("| `")).toList();
    assertEquals(14, rows.size(), page);
    assertEquals(
        "| `buffer.capacity` | `64m` | a size such as 512m, 4g or 1048576 (bytes)"
            + " | Memory for pushed data. | 0.1.0 |",
        rows.get(0));
    assertEquals(
        "| `flush.timeout` | `30s` | a duration such as 500ms, 30s, 5m, 1h or 2d, at least 1ms,"
            + " at most 1h | How long a flush may take. | 0.1.0 |",
        rows.get(2));
    assertEquals(
        "| `ring.size` | `1024` | an integer, at least 1, must be a power of two"
            + " | Slots in the ring. | 0.1.0 |",
        rows.get(4));
    assertEquals(
        "| `cluster.name` | (empty) | a string | A name for logs and metrics. | 0.1.0 |",
        rows.get(9));
    assertEquals(
        "| `io.mode` | `auto` | one of: auto, epoll, nio"
            + " | Netty transport: auto picks epoll where it is available. | 0.2.0 |",
        rows.get(11));
    assertEquals(
        "| `client.coordinators` | **required** | a comma-separated list"
            + " | Coordinator addresses, host:port. | 0.1.0 |",
        rows.get(12));
    assertEquals(
        "| `client.app-secret` | (none) | a string"
            + " | Shared secret of the application \\| when TLS is on. | 0.1.0 |",
        rows.get(13));
    for (String row : rows) {
      assertEquals(6, row.replace("\\|", "").chars().filter(c -> c == '|').count(), row);
    }
  }

  @Test
  void aSetWithoutOptionsSaysSo() {
    ConfigOptionSet empty =
        new ConfigOptionSet() {
          @Override
          public String title() {
            return "Nothing";
          }

          @Override
          public String description() {
            return "Nothing to set.";
          }

          @Override
          public List<ConfigOption<?>> options() {
            return List.of();
          }
        };
    assertTrue(
        ConfigDocGenerator.generate(List.of(empty))
            .endsWith("\n## Nothing\n\nNothing to set.\n\n_No options._\n"));
  }

  @Test
  void theOutputDependsOnlyOnTheSets() {
    List<ConfigOptionSet> sets = List.of(new TestServerOptions(), new TestClientOptions());
    assertEquals(ConfigDocGenerator.generate(sets), ConfigDocGenerator.generate(sets));
    assertTrue(ConfigDocGenerator.generate(List.of()).startsWith("# Configuration\n"));
  }

  @Test
  void duplicateKeysFailTheGeneration() {
    assertThrows(
        IllegalStateException.class,
        () ->
            ConfigDocGenerator.generate(List.of(new TestServerOptions(), new TestServerOptions())));
  }

  @Test
  void discoverFindsRegisteredSetsOrderedByTitle() throws IOException {
    List<ConfigOptionSet> sets = withServices(ConfigDocGenerator::discover);
    List<String> titles = sets.stream().map(ConfigOptionSet::title).toList();
    assertEquals(titles.stream().sorted().toList(), titles);
    assertTrue(titles.containsAll(List.of(TestClientOptions.TITLE, TestServerOptions.TITLE)));
    // The real sets of common (transport) are discovered too.
    assertTrue(titles.contains(new io.sluice.common.transport.TransportOptions().title()));
  }

  @Test
  void mainWritesThePageOfTheDiscoveredSets() throws IOException {
    Path out = dir.resolve("docs/configuration.md");
    withServices(
        () -> {
          try {
            ConfigDocGenerator.main(new String[] {out.toString()});
          } catch (IOException e) {
            throw new AssertionError(e);
          }
          return null;
        });
    List<ConfigOptionSet> expected = withServices(ConfigDocGenerator::discover);
    assertEquals(
        ConfigDocGenerator.generate(expected), Files.readString(out, StandardCharsets.UTF_8));
    assertTrue(Files.readString(out, StandardCharsets.UTF_8).contains(TestServerOptions.TITLE));
    assertThrows(IllegalArgumentException.class, () -> ConfigDocGenerator.main(new String[0]));
  }

  /**
   * Runs {@code action} with a context class loader that also sees a service file registering the
   * test sets. The file is not in the test resources because other modules' tests see those, and
   * the test sets must not appear in the real docs.
   */
  private <T> T withServices(java.util.function.Supplier<T> action) throws IOException {
    Path services = dir.resolve("services/META-INF/services");
    Files.createDirectories(services);
    Files.writeString(
        services.resolve(ConfigOptionSet.class.getName()),
        "# test sets\n"
            + TestServerOptions.class.getName()
            + "\n"
            + TestClientOptions.class.getName()
            + "\n",
        StandardCharsets.UTF_8);
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    URL[] path = {dir.resolve("services").toUri().toURL()};
    try (URLClassLoader loader = new URLClassLoader(path, getClass().getClassLoader())) {
      thread.setContextClassLoader(loader);
      return action.get();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }
}
