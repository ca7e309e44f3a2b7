package io.sluice.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.TestServerOptions.IoMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  private static final List<ConfigOptionSet> SERVER = List.of(new TestServerOptions());

  @TempDir Path dir;

  @Test
  void readsKeyValueLinesWithEitherSeparator() throws IOException {
    Path file =
        write(
            "# Test server",
            "",
            "buffer.capacity 1g",
            "read.buffer.capacity=2g",
            "  flush.timeout   =   10s  ",
            "\tflush.threads\t4",
            "   # an indented comment",
            "storage.dirs /data/1, /data/2 ,/data/3",
            "cluster.name spark #7",
            "io.mode= epoll",
            "   ");
    SluiceConf conf = load(file);
    assertEquals(1L << 30, conf.get(TestServerOptions.BUFFER_CAPACITY));
    assertEquals(2L << 30, conf.get(TestServerOptions.READ_BUFFER_CAPACITY));
    assertEquals(Duration.ofSeconds(10), conf.get(TestServerOptions.FLUSH_TIMEOUT));
    assertEquals(4, conf.get(TestServerOptions.FLUSH_THREADS));
    assertEquals(
        List.of("/data/1", "/data/2", "/data/3"), conf.get(TestServerOptions.STORAGE_DIRS));
    assertEquals("spark #7", conf.get(TestServerOptions.CLUSTER_NAME));
    assertEquals(IoMode.EPOLL, conf.get(TestServerOptions.IO_MODE));
    assertEquals(7, conf.toMap().size());
  }

  @Test
  void anEmptyFileGivesTheDefaults() throws IOException {
    SluiceConf conf = ConfigLoader.load(write(), Map.of(), SERVER);
    assertEquals(Map.of(), conf.toMap());
    assertEquals(64L << 20, conf.get(TestServerOptions.BUFFER_CAPACITY));
  }

  @Test
  void aKeyAloneSetsAnEmptyValue() throws IOException {
    SluiceConf conf = ConfigLoader.load(write("storage.dirs", "cluster.name ="), Map.of(), SERVER);
    assertEquals(List.of(), conf.get(TestServerOptions.STORAGE_DIRS));
    assertEquals("", conf.get(TestServerOptions.CLUSTER_NAME));
    Path bad = write("buffer.capacity");
    ConfigException e = assertThrows(ConfigException.class, () -> load(bad));
    assertEquals(
        "Invalid value '' for 'buffer.capacity' ("
            + bad
            + ", line 1): expected a size such as"
            + " 512m, 4g or 1048576 (bytes).",
        e.getMessage());
  }

  @Test
  void aBadValueIsReportedWithFileAndLine() throws IOException {
    Path file = write("# comment", "flush.threads 4", "buffer.capacity=banana");
    ConfigException e = assertThrows(ConfigException.class, () -> load(file));
    assertEquals(
        "Invalid value 'banana' for 'buffer.capacity' ("
            + file
            + ", line 3): expected a size"
            + " such as 512m, 4g or 1048576 (bytes).",
        e.getMessage());
  }

  @Test
  void anUnknownKeyIsReportedWithFileLineAndSuggestion() throws IOException {
    Path file = write("flush.threads 4", "", "buffer.capactiy 64m", "no.such.thing 1");
    ConfigException e = assertThrows(ConfigException.class, () -> load(file));
    assertEquals(
        List.of(
            "Unknown key 'buffer.capactiy' (" + file + ", line 3). Did you mean 'buffer.capacity'?",
            "Unknown key 'no.such.thing' (" + file + ", line 4)."),
        e.getMessage().lines().toList());
  }

  @Test
  void aDuplicateKeyNamesBothLines() throws IOException {
    Path file = write("flush.threads 4", "buffer.capacity 1g", "# again", "flush.threads=8");
    ConfigException e = assertThrows(ConfigException.class, () -> load(file));
    assertEquals(
        "Duplicate key 'flush.threads' in " + file + ": line 1 and line 4.", e.getMessage());
  }

  @Test
  void aLineWithoutKeyIsRefused() throws IOException {
    Path file = write("=4");
    ConfigException e = assertThrows(ConfigException.class, () -> load(file));
    assertEquals("No key before '=' (" + file + ", line 1): write 'key value'.", e.getMessage());
  }

  @Test
  void everyProblemOfAFileIsReportedInLineOrder() throws IOException {
    Path file =
        write(
            "tls.enabled yes",
            "buffer.capacity -1m",
            "flush.timeout 30",
            "tls.enabled true",
            "bufer.capacity 1g",
            "io.mode kqueue");
    ConfigException e = assertThrows(ConfigException.class, () -> load(file));
    assertEquals(
        List.of(
            "Duplicate key 'tls.enabled' in " + file + ": line 1 and line 4.",
            "Invalid value 'yes' for 'tls.enabled' (" + file + ", line 1): expected true or false.",
            "Invalid value '-1m' for 'buffer.capacity' ("
                + file
                + ", line 2): a size cannot be negative;"
                + " expected a size such as 512m, 4g or 1048576 (bytes).",
            "Invalid value '30' for 'flush.timeout' ("
                + file
                + ", line 3): a duration needs a unit (ms, s, m or"
                + " min, h, d); expected a duration such as 500ms, 30s, 5m, 1h or 2d, at least 1ms, at most 1h.",
            "Unknown key 'bufer.capacity' (" + file + ", line 5). Did you mean 'buffer.capacity'?",
            "Invalid value 'kqueue' for 'io.mode' ("
                + file
                + ", line 6): expected one of: auto, epoll, nio."),
        e.getMessage().lines().toList());
  }

  @Test
  void overridesWinOverTheFile() throws IOException {
    Path file = write("flush.threads 4", "buffer.capacity 1g");
    SluiceConf conf =
        ConfigLoader.load(file, Map.of("flush.threads", "16", "io.mode", "nio"), SERVER);
    assertEquals(16, conf.get(TestServerOptions.FLUSH_THREADS));
    assertEquals(1L << 30, conf.get(TestServerOptions.BUFFER_CAPACITY));
    assertEquals(IoMode.NIO, conf.get(TestServerOptions.IO_MODE));
    assertEquals(
        Map.of("flush.threads", "16", "buffer.capacity", "1g", "io.mode", "nio"), conf.toMap());
  }

  @Test
  void anOverrideReplacesABadFileValueAndIsCheckedItself() throws IOException {
    Path file = write("flush.threads 0");
    assertEquals(
        3,
        ConfigLoader.load(file, Map.of("flush.threads", "3"), SERVER)
            .get(TestServerOptions.FLUSH_THREADS));
    Path good = write("flush.threads 3");
    Map<String, String> overrides = Map.of("flush.threads", "x", "flush.thread", "1");
    String message =
        assertThrows(ConfigException.class, () -> ConfigLoader.load(good, overrides, SERVER))
            .getMessage();
    assertTrue(
        message.contains("Invalid value 'x' for 'flush.threads' (override): expected an integer"),
        message);
    assertTrue(
        message.contains("Unknown key 'flush.thread' (override). Did you mean 'flush.threads'?"),
        message);
  }

  @Test
  void crossOptionChecksRunOnTheMergedValues() throws IOException {
    Path file = write("memory.low-watermark 0.9");
    assertThrows(ConfigException.class, () -> load(file));
    SluiceConf conf = ConfigLoader.load(file, Map.of("memory.high-watermark", "0.95"), SERVER);
    assertEquals(0.95, conf.get(TestServerOptions.HIGH_WATERMARK));
  }

  @Test
  void aMissingFileIsAConfigError() {
    Path missing = dir.resolve("absent.conf");
    ConfigException e = assertThrows(ConfigException.class, () -> load(missing));
    assertTrue(
        e.getMessage().startsWith("Cannot read configuration file " + missing + ": "),
        e.getMessage());
  }

  @Test
  void aFileThatIsNotUtf8IsAConfigError() throws IOException {
    Path file = dir.resolve("latin1.conf");
    Files.write(file, new byte[] {'a', ' ', (byte) 0xE9, '\n'});
    assertThrows(ConfigException.class, () -> load(file));
  }

  @Test
  void windowsLineEndingsAreAccepted() throws IOException {
    Path file = dir.resolve("crlf.conf");
    Files.writeString(file, "# c\r\nflush.threads 4\r\nio.mode nio\r\n", StandardCharsets.UTF_8);
    SluiceConf conf = load(file);
    assertEquals(4, conf.get(TestServerOptions.FLUSH_THREADS));
    assertEquals(IoMode.NIO, conf.get(TestServerOptions.IO_MODE));
  }

  @Test
  void environmentVariablesInValuesAreReplacedAndAnUnsetOneIsAnError() throws IOException {
    Map<String, String> environment = Map.of("SLUICE_CONF_DIR", "/opt/sluice/conf", "N", "2");
    SluiceConf conf =
        ConfigLoader.load(
            write(
                "cluster.name ${SLUICE_CONF_DIR}/cluster.secret",
                "storage.dirs /data/${N}, /data/$N, /cost/$5"),
            Map.of(),
            SERVER,
            environment);
    assertEquals("/opt/sluice/conf/cluster.secret", conf.get(TestServerOptions.CLUSTER_NAME));
    assertEquals(
        List.of("/data/2", "/data/$N", "/cost/$5"), conf.get(TestServerOptions.STORAGE_DIRS));

    Path bad = write("cluster.name ${SLUICE_HOME}/x");
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> ConfigLoader.load(bad, Map.of(), SERVER, environment));
    assertEquals(
        "'${SLUICE_HOME}' ("
            + bad
            + ", line 1) names the environment variable "
            + "SLUICE_HOME, which is not set: set it, or write the value itself.",
        e.getMessage());
  }

  private static SluiceConf load(Path file) {
    return ConfigLoader.load(file, Map.of(), SERVER);
  }

  private Path write(String... lines) throws IOException {
    Path file = Files.createTempFile(dir, "test", ".conf");
    Files.write(file, List.of(lines), StandardCharsets.UTF_8);
    return file;
  }
}
