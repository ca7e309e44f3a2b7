package io.sluice.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Declaring options: defaults, limits, validators, and declarations that must be refused. */
class ConfigOptionBuilderTest {

  @Test
  void aDefaultIsKeptAsWrittenAndParsed() {
    ConfigOption<Long> option = TestServerOptions.BUFFER_CAPACITY;
    assertEquals("buffer.capacity", option.key());
    assertTrue(option.hasDefault());
    assertEquals("64m", option.defaultValueText());
    assertEquals(64L << 20, SluiceConf.empty().get(option));
    assertEquals("Memory for pushed data.", option.doc());
    assertEquals("buffer.capacity", option.toString());
  }

  @Test
  void sinceIsTheFirstVersionUnlessGiven() {
    assertEquals("0.1.0", TestServerOptions.BUFFER_CAPACITY.since());
    assertEquals("0.2.0", TestServerOptions.IO_MODE.since());
  }

  @Test
  void optionalAndRequiredOptionsHaveNoDefault() {
    assertFalse(TestClientOptions.APP_SECRET.hasDefault());
    assertNull(TestClientOptions.APP_SECRET.defaultValueText());
    assertFalse(TestClientOptions.APP_SECRET.isRequired());
    assertFalse(TestClientOptions.COORDINATORS.hasDefault());
    assertNull(TestClientOptions.COORDINATORS.defaultValueText());
    assertTrue(TestClientOptions.COORDINATORS.isRequired());
    assertFalse(TestServerOptions.BUFFER_CAPACITY.isRequired());
  }

  @Test
  void aMalformedDefaultFailsTheBuild() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigOption.bytes("test.size").defaultValue("lots").doc("d").build());
    assertEquals(
        "Invalid value 'lots' for 'test.size' (default): expected a size such as 512m, 4g or"
            + " 1048576 (bytes).",
        e.getMessage());
  }

  @Test
  void aDefaultOutsideTheLimitsFailsTheBuild() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigOption.integer("test.int").defaultValue("0").min(1).doc("d").build());
    assertEquals(
        "Invalid value '0' for 'test.int' (default): must be at least 1; expected an integer, at"
            + " least 1.",
        e.getMessage());
  }

  /**
   * An option class with a bad default cannot be loaded at all, so the mistake shows on first use.
   */
  static final class BadDefaultOptions {
    static final ConfigOption<Duration> TIMEOUT =
        ConfigOption.duration("test.timeout").defaultValue("30").doc("d").build();
  }

  @Test
  void anOptionClassWithABadDefaultFailsToInitialise() {
    ExceptionInInitializerError e =
        assertThrows(
            ExceptionInInitializerError.class,
            () ->
                Class.forName(
                    BadDefaultOptions.class.getName(), true, getClass().getClassLoader()));
    assertInstanceOf(ConfigException.class, e.getCause());
    assertTrue(
        e.getCause().getMessage().startsWith("Invalid value '30' for 'test.timeout' (default)"));
  }

  @Test
  void integerLimits() {
    ConfigOption<Integer> threads = TestServerOptions.FLUSH_THREADS;
    assertEquals("an integer, at least 1, at most 64", threads.acceptedForm());
    assertEquals(1, threads.parse("1"));
    assertEquals(64, threads.parse("64"));
    assertEquals(
        "Invalid value '0' for 'flush.threads': must be at least 1; expected an integer, at least 1,"
            + " at most 64.",
        assertThrows(ConfigException.class, () -> threads.parse("0")).getMessage());
    assertEquals(
        "Invalid value '65' for 'flush.threads': must be at most 64; expected an integer,"
            + " at least 1, at most 64.",
        assertThrows(ConfigException.class, () -> threads.parse("65")).getMessage());
  }

  @Test
  void sizeLimitsAreInBytesAndShownWithUnits() {
    ConfigOption<Long> size = TestServerOptions.READ_BUFFER_CAPACITY;
    assertEquals(
        "a size such as 512m, 4g or 1048576 (bytes), at least 1m, at most 1t", size.acceptedForm());
    assertEquals(1L << 20, size.parse("1m"));
    assertEquals(1L << 20, size.parse("1024k"));
    assertEquals(1L << 40, size.parse("1t"));
    ConfigException e = assertThrows(ConfigException.class, () -> size.parse("1048575"));
    assertTrue(e.getMessage().contains(": must be at least 1m; "), e.getMessage());
    e = assertThrows(ConfigException.class, () -> size.parse("1025g"));
    assertTrue(e.getMessage().contains(": must be at most 1t; "), e.getMessage());
    ConfigOption<Long> odd = ConfigOption.bytes("test.size").min(1000).noDefault().doc("d").build();
    assertEquals("a size such as 512m, 4g or 1048576 (bytes), at least 1000", odd.acceptedForm());
  }

  @Test
  void durationLimitsAreInMillisecondsAndShownWithUnits() {
    ConfigOption<Duration> timeout = TestServerOptions.FLUSH_TIMEOUT;
    assertEquals(
        "a duration such as 500ms, 30s, 5m, 1h or 2d, at least 1ms, at most 1h",
        timeout.acceptedForm());
    assertEquals(Duration.ofHours(1), timeout.parse("60min"));
    assertEquals(Duration.ofMillis(1), timeout.parse("1ms"));
    assertTrue(
        assertThrows(ConfigException.class, () -> timeout.parse("0s"))
            .getMessage()
            .contains(": must be at least 1ms; "));
    assertTrue(
        assertThrows(ConfigException.class, () -> timeout.parse("3600001ms"))
            .getMessage()
            .contains(": must be at most 1h; "));
    ConfigOption<Duration> mixed =
        ConfigOption.duration("test.duration")
            .min(1500)
            .max(2 * 86_400_000L)
            .noDefault()
            .doc("d")
            .build();
    assertEquals(
        "a duration such as 500ms, 30s, 5m, 1h or 2d, at least 1500ms, at most 2d",
        mixed.acceptedForm());
  }

  @Test
  void doubleLimitsAreInclusive() {
    ConfigOption<Double> high = TestServerOptions.HIGH_WATERMARK;
    assertEquals("a number such as 0.75, at least 0.0, at most 1.0", high.acceptedForm());
    assertEquals(0.0, high.parse("0"));
    assertEquals(-0.0, high.parse("-0.0"));
    assertEquals(1.0, high.parse("1"));
    assertTrue(
        assertThrows(ConfigException.class, () -> high.parse("1.0000001"))
            .getMessage()
            .contains(": must be at most 1.0; "));
    assertTrue(
        assertThrows(ConfigException.class, () -> high.parse("-0.1"))
            .getMessage()
            .contains(": must be at least 0.0; "));
    ConfigOption<Double> wholeLimit =
        ConfigOption.doubleValue("test.double").min(1).noDefault().doc("d").build();
    assertEquals("a number such as 0.75, at least 1", wholeLimit.acceptedForm());
    assertEquals(1.0, wholeLimit.parse("1.0"));
    assertThrows(ConfigException.class, () -> wholeLimit.parse("0.999"));
  }

  @Test
  void aValidatorsRequirementIsTheErrorAndPartOfTheForm() {
    ConfigOption<Integer> ring = TestServerOptions.RING_SIZE;
    assertEquals("an integer, at least 1, must be a power of two", ring.acceptedForm());
    assertEquals(1024, ring.parse("1024"));
    assertEquals(1, ring.parse("1"));
    assertEquals(
        "Invalid value '1000' for 'ring.size': must be a power of two; expected an integer,"
            + " at least 1, must be a power of two.",
        assertThrows(ConfigException.class, () -> ring.parse("1000")).getMessage());
    // Limits are checked before validators, so a validator never sees a value outside them.
    assertTrue(
        assertThrows(ConfigException.class, () -> ring.parse("-4"))
            .getMessage()
            .contains(": must be at least 1; "));
  }

  @Test
  void validatorsRunInTheOrderDeclared() {
    ConfigOption<String> name =
        ConfigOption.string("test.string")
            .validate(s -> !s.isEmpty(), "must not be empty")
            .validate(s -> s.length() <= 3, "must be at most 3 characters")
            .noDefault()
            .doc("d")
            .build();
    assertEquals("a string, must not be empty, must be at most 3 characters", name.acceptedForm());
    assertEquals("abc", name.parse("abc"));
    assertTrue(
        assertThrows(ConfigException.class, () -> name.parse(""))
            .getMessage()
            .contains(": must not be empty; "));
    assertTrue(
        assertThrows(ConfigException.class, () -> name.parse("abcd"))
            .getMessage()
            .contains(": must be at most 3 characters; "));
  }

  @Test
  void limitsApplyOnlyToOrderedKinds() {
    assertThrows(IllegalStateException.class, () -> ConfigOption.string("test.string").min(1));
    assertThrows(IllegalStateException.class, () -> ConfigOption.bool("test.bool").max(1));
    assertThrows(IllegalStateException.class, () -> ConfigOption.list("test.list").max(1));
    assertThrows(
        IllegalStateException.class,
        () -> ConfigOption.enumValue("test.enum", TestServerOptions.IoMode.class).min(0));
    assertThrows(IllegalStateException.class, () -> ConfigOption.integer("test.int").min(0.5));
    assertThrows(IllegalStateException.class, () -> ConfigOption.bytes("test.size").max(1.5));
    assertThrows(
        IllegalArgumentException.class,
        () -> ConfigOption.doubleValue("test.double").max(Double.NaN));
    assertThrows(
        IllegalArgumentException.class,
        () -> ConfigOption.doubleValue("test.double").min(Double.NEGATIVE_INFINITY));
  }

  @Test
  void inconsistentDeclarationsAreRefused() {
    assertThrows(
        IllegalStateException.class,
        () -> ConfigOption.integer("test.int").defaultValue("1").build());
    assertThrows(
        IllegalStateException.class,
        () -> ConfigOption.integer("test.int").defaultValue("1").doc("  ").build());
    assertThrows(
        IllegalStateException.class,
        () -> ConfigOption.integer("test.int").defaultValue("1").noDefault().doc("d").build());
    assertThrows(
        IllegalStateException.class,
        () -> ConfigOption.integer("test.int").min(10).max(9).noDefault().doc("d").build());
    assertThrows(
        IllegalStateException.class,
        () -> ConfigOption.integer("test.int").since(" ").noDefault().doc("d").build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a b", "a..b", ".a", "a.", "a=b", "a#b", "-a", "ä"})
  void malformedKeysAreRefused(String key) {
    assertThrows(IllegalArgumentException.class, () -> ConfigOption.string(key));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a", "buffer.capacity", "memory.high-watermark", "sluice.io_mode", "Client.X2"})
  void wellFormedKeysAreAccepted(String key) {
    assertEquals(key, ConfigOption.string(key).noDefault().doc("d").build().key());
  }
}
