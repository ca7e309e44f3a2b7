package io.sluice.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.TestServerOptions.IoMode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading the text of every kind of value, good and bad, without limits. */
class ConfigOptionParsingTest {
  private static final ConfigOption<Long> SIZE =
      ConfigOption.bytes("test.size").noDefault().doc("d").build();
  private static final ConfigOption<Duration> DURATION =
      ConfigOption.duration("test.duration").noDefault().doc("d").build();
  private static final ConfigOption<Integer> INT =
      ConfigOption.integer("test.int").noDefault().doc("d").build();
  private static final ConfigOption<Long> LONG =
      ConfigOption.longValue("test.long").noDefault().doc("d").build();
  private static final ConfigOption<Double> DOUBLE =
      ConfigOption.doubleValue("test.double").noDefault().doc("d").build();
  private static final ConfigOption<Boolean> BOOL =
      ConfigOption.bool("test.bool").noDefault().doc("d").build();
  private static final ConfigOption<String> STRING =
      ConfigOption.string("test.string").noDefault().doc("d").build();
  private static final ConfigOption<List<String>> LIST =
      ConfigOption.list("test.list").noDefault().doc("d").build();
  private static final ConfigOption<IoMode> ENUM =
      ConfigOption.enumValue("test.enum", IoMode.class).noDefault().doc("d").build();

  @ParameterizedTest
  @CsvSource({
    "0, 0",
    "512, 512",
    "512b, 512",
    "512B, 512",
    "64k, 65536",
    "64K, 65536",
    "64kb, 65536",
    "64KiB, 65536",
    "64m, 67108864",
    "64 m, 67108864",
    "64MB, 67108864",
    "1g, 1073741824",
    "1.5g, 1610612736",
    "0.5k, 512",
    "2t, 2199023255552",
    "1p, 1125899906842624",
    "9223372036854775807, 9223372036854775807",
    "'  64m  ', 67108864",
  })
  void sizesAreBytesWithBinaryUnits(String text, long bytes) {
    assertEquals(bytes, SIZE.parse(text));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "banana", "", "m", "1x", "64mm", "64mbb", "1e3", "0x10", "64 m b", "1,5g", "+1m", "64ib"
      })
  void malformedSizesNameTheKeyValueAndForm(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> SIZE.parse(text));
    assertEquals(
        "Invalid value '"
            + text.trim()
            + "' for 'test.size': expected a size such as 512m, 4g or"
            + " 1048576 (bytes).",
        e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "-1m", "-0.5g"})
  void negativeSizesAreRefused(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> SIZE.parse(text));
    assertEquals(
        "Invalid value '"
            + text
            + "' for 'test.size': a size cannot be negative; expected a size"
            + " such as 512m, 4g or 1048576 (bytes).",
        e.getMessage());
  }

  @Test
  void sizesMustBeWholeBytesAndFitALong() {
    assertMessageContains(SIZE, "1.5", "not a whole number of bytes");
    assertMessageContains(SIZE, "0.3k", "not a whole number of bytes");
    assertMessageContains(SIZE, "9223372036854775808", "too large");
    assertMessageContains(SIZE, "8192p", "too large");
  }

  @ParameterizedTest
  @CsvSource({
    "0ms, 0",
    "500ms, 500",
    "500MS, 500",
    "30s, 30000",
    "1.5s, 1500",
    "5m, 300000",
    "5min, 300000",
    "5 MIN, 300000",
    "1h, 3600000",
    "2d, 172800000",
  })
  void durationsNeedAUnit(String text, long millis) {
    assertEquals(Duration.ofMillis(millis), DURATION.parse(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"30", "0", "1.5"})
  void bareNumbersAreRefusedNamingTheUnits(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> DURATION.parse(text));
    assertEquals(
        "Invalid value '"
            + text
            + "' for 'test.duration': a duration needs a unit"
            + " (ms, s, m or min, h, d); expected a duration such as 500ms, 30s, 5m, 1h or 2d.",
        e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"banana", "", "s", "5 minutes", "5sec", "1w", "10us", "PT5S", "5m30s"})
  void malformedDurationsAreRefused(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> DURATION.parse(text));
    assertEquals(
        "Invalid value '"
            + text
            + "' for 'test.duration': expected a duration such as 500ms, 30s,"
            + " 5m, 1h or 2d.",
        e.getMessage());
  }

  @Test
  void durationsMustBeWholeNonNegativeMillisecondsThatFit() {
    assertMessageContains(DURATION, "-5s", "a duration cannot be negative");
    assertMessageContains(DURATION, "1.0001s", "not a whole number of milliseconds");
    assertMessageContains(DURATION, "200000000000d", "too long");
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "-5, -5", "+7, 7", "2147483647, 2147483647", "-2147483648, -2147483648"})
  void integers(String text, int value) {
    assertEquals(value, INT.parse(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "abc", "1.0", "1e3", "0x10", "1_000", "1 000", "5k"})
  void malformedIntegersAreRefused(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> INT.parse(text));
    assertEquals(
        "Invalid value '" + text + "' for 'test.int': expected an integer.", e.getMessage());
  }

  @Test
  void integersOutsideTheirRangeAreRefused() {
    assertMessageContains(INT, "2147483648", "outside the range of a 32-bit integer");
    assertMessageContains(INT, "-2147483649", "outside the range of a 32-bit integer");
    assertEquals(Long.MAX_VALUE, LONG.parse("9223372036854775807"));
    assertEquals(Long.MIN_VALUE, LONG.parse("-9223372036854775808"));
    assertMessageContains(LONG, "9223372036854775808", "outside the range of a 64-bit integer");
    assertMessageContains(LONG, "x", "expected an integer");
  }

  @ParameterizedTest
  @CsvSource({
    "0.75, 0.75",
    "1, 1.0",
    "-2.5, -2.5",
    ".5, 0.5",
    "1., 1.0",
    "1e-3, 0.001",
    "2.5E2, 250.0"
  })
  void doubles(String text, double value) {
    assertEquals(value, DOUBLE.parse(text));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "abc", "NaN", "Infinity", "-Infinity", "1d", "1f", "0x1p3", "1,5", "."})
  void malformedDoublesAreRefused(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> DOUBLE.parse(text));
    assertEquals(
        "Invalid value '" + text + "' for 'test.double': expected a number such as 0.75.",
        e.getMessage());
  }

  @Test
  void doublesThatOverflowAreRefused() {
    assertMessageContains(DOUBLE, "1e400", "too large");
  }

  @Test
  void booleansAreTrueOrFalseOnly() {
    assertEquals(true, BOOL.parse("true"));
    assertEquals(true, BOOL.parse("True"));
    assertEquals(false, BOOL.parse("FALSE"));
    for (String bad : List.of("yes", "no", "1", "0", "on", "", "t")) {
      ConfigException e = assertThrows(ConfigException.class, () -> BOOL.parse(bad));
      assertEquals(
          "Invalid value '" + bad + "' for 'test.bool': expected true or false.", e.getMessage());
    }
  }

  @Test
  void stringsAreTrimmed() {
    assertEquals("hello world", STRING.parse("  hello world \t"));
    assertEquals("", STRING.parse(""));
    assertEquals("a#b", STRING.parse("a#b"));
  }

  @Test
  void listsAreSplitOnCommasTrimmedAndWithoutEmptyEntries() {
    assertEquals(List.of("a", "b", "c"), LIST.parse(" a, b,,c , "));
    assertEquals(List.of("host:1 x"), LIST.parse("host:1 x"));
    assertEquals(List.of(), LIST.parse(""));
    assertEquals(List.of(), LIST.parse(" , ,"));
    assertThrows(UnsupportedOperationException.class, () -> LIST.parse("a").add("b"));
  }

  @Test
  void enumsTakeTheirNamesInAnyCase() {
    assertEquals(IoMode.EPOLL, ENUM.parse("epoll"));
    assertEquals(IoMode.NIO, ENUM.parse("Nio"));
    assertEquals(IoMode.AUTO, ENUM.parse(" AUTO "));
    ConfigException e = assertThrows(ConfigException.class, () -> ENUM.parse("kqueue"));
    assertEquals(
        "Invalid value 'kqueue' for 'test.enum': expected one of: auto, epoll, nio.",
        e.getMessage());
  }

  @Test
  void acceptedFormsOfEveryKind() {
    assertEquals("a size such as 512m, 4g or 1048576 (bytes)", SIZE.acceptedForm());
    assertEquals("a duration such as 500ms, 30s, 5m, 1h or 2d", DURATION.acceptedForm());
    assertEquals("an integer", INT.acceptedForm());
    assertEquals("an integer", LONG.acceptedForm());
    assertEquals("a number such as 0.75", DOUBLE.acceptedForm());
    assertEquals("true or false", BOOL.acceptedForm());
    assertEquals("a string", STRING.acceptedForm());
    assertEquals("a comma-separated list", LIST.acceptedForm());
    assertEquals("one of: auto, epoll, nio", ENUM.acceptedForm());
  }

  @Test
  void nullIsAProgrammingError() {
    assertThrows(NullPointerException.class, () -> SIZE.parse(null));
  }

  private static void assertMessageContains(ConfigOption<?> option, String text, String detail) {
    ConfigException e = assertThrows(ConfigException.class, () -> option.parse(text));
    String message = e.getMessage();
    assertTrue(
        message.startsWith("Invalid value '" + text + "' for '" + option.key() + "': "), message);
    assertTrue(message.contains(detail), message);
    assertTrue(message.endsWith("expected " + option.acceptedForm() + "."), message);
  }
}
