package io.sluice.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.TestServerOptions.IoMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SluiceConfTest {
  private static final List<ConfigOptionSet> SERVER = List.of(new TestServerOptions());
  private static final List<ConfigOptionSet> BOTH =
      List.of(new TestServerOptions(), new TestClientOptions());

  @Test
  void anEmptyConfigurationHasEveryDefault() {
    SluiceConf conf = SluiceConf.empty();
    assertEquals(64L << 20, conf.get(TestServerOptions.BUFFER_CAPACITY));
    assertEquals(Duration.ofSeconds(30), conf.get(TestServerOptions.FLUSH_TIMEOUT));
    assertEquals(2, conf.get(TestServerOptions.FLUSH_THREADS));
    assertEquals(10_000_000_000L, conf.get(TestServerOptions.MAX_BLOCKS));
    assertEquals(0.8, conf.get(TestServerOptions.HIGH_WATERMARK));
    assertEquals(false, conf.get(TestServerOptions.TLS_ENABLED));
    assertEquals("", conf.get(TestServerOptions.CLUSTER_NAME));
    assertEquals(
        List.of("/tmp/sluice-a", "/tmp/sluice-b"), conf.get(TestServerOptions.STORAGE_DIRS));
    assertEquals(IoMode.AUTO, conf.get(TestServerOptions.IO_MODE));
    assertEquals(Optional.of(IoMode.AUTO), conf.getOptional(TestServerOptions.IO_MODE));
    assertFalse(conf.isSet(TestServerOptions.IO_MODE));
    assertEquals(Map.of(), conf.toMap());
  }

  @Test
  void anUnsetOptionWithoutDefaultIsEmptyOrAnError() {
    SluiceConf conf = SluiceConf.empty();
    assertEquals(Optional.empty(), conf.getOptional(TestClientOptions.APP_SECRET));
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> conf.get(TestClientOptions.APP_SECRET));
    assertTrue(e.getMessage().contains("'client.app-secret'"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> conf.get(TestClientOptions.COORDINATORS));
  }

  @Test
  void valuesAreParsedOnceAndReturned() {
    SluiceConf conf =
        SluiceConf.of(
            Map.of(
                "buffer.capacity", "1g",
                "io.mode", "NIO",
                "storage.dirs", "/d1,/d2",
                "client.coordinators", "c1:9000",
                "client.app-secret", "s3cret"),
            BOTH);
    assertEquals(1L << 30, conf.get(TestServerOptions.BUFFER_CAPACITY));
    assertEquals(IoMode.NIO, conf.get(TestServerOptions.IO_MODE));
    assertEquals(List.of("/d1", "/d2"), conf.get(TestServerOptions.STORAGE_DIRS));
    assertEquals(List.of("c1:9000"), conf.get(TestClientOptions.COORDINATORS));
    assertEquals(Optional.of("s3cret"), conf.getOptional(TestClientOptions.APP_SECRET));
    assertTrue(conf.isSet(TestServerOptions.BUFFER_CAPACITY));
    assertFalse(conf.isSet(TestServerOptions.FLUSH_THREADS));
    assertEquals(2, conf.get(TestServerOptions.FLUSH_THREADS));
    assertSame(conf.get(TestServerOptions.STORAGE_DIRS), conf.get(TestServerOptions.STORAGE_DIRS));
  }

  @Test
  void toMapHoldsTheExplicitValuesAsWrittenInKeyOrder() {
    SluiceConf conf = SluiceConf.of(Map.of("io.mode", "Epoll", "buffer.capacity", " 1g "), SERVER);
    assertEquals(List.of("buffer.capacity", "io.mode"), new ArrayList<>(conf.toMap().keySet()));
    assertEquals(Map.of("buffer.capacity", " 1g ", "io.mode", "Epoll"), conf.toMap());
    assertThrows(UnsupportedOperationException.class, () -> conf.toMap().put("x", "y"));
  }

  @Test
  void toStringShowsKeysButNotValues() {
    SluiceConf conf = SluiceConf.empty().with(TestClientOptions.APP_SECRET, "s3cret");
    assertEquals("SluiceConf[client.app-secret]", conf.toString());
  }

  @Test
  void withReturnsAValidatedCopy() {
    SluiceConf base = SluiceConf.empty();
    SluiceConf changed = base.with(TestServerOptions.FLUSH_THREADS, "8");
    assertNotSame(base, changed);
    assertEquals(8, changed.get(TestServerOptions.FLUSH_THREADS));
    assertEquals(2, base.get(TestServerOptions.FLUSH_THREADS));
    SluiceConf changedAgain = changed.with(TestServerOptions.FLUSH_THREADS, "16");
    assertEquals(16, changedAgain.get(TestServerOptions.FLUSH_THREADS));
    assertEquals(Map.of("flush.threads", "8"), changed.toMap());
    ConfigException e =
        assertThrows(ConfigException.class, () -> base.with(TestServerOptions.FLUSH_THREADS, "0"));
    assertTrue(
        e.getMessage().startsWith("Invalid value '0' for 'flush.threads': must be at least 1"));
  }

  @Test
  void withDoesNotRunCrossOptionChecksSoRelatedValuesCanChangeOneAtATime() {
    SluiceConf conf =
        SluiceConf.of(Map.of(), SERVER)
            .with(TestServerOptions.LOW_WATERMARK, "0.9")
            .with(TestServerOptions.HIGH_WATERMARK, "0.95");
    assertEquals(0.9, conf.get(TestServerOptions.LOW_WATERMARK));
  }

  @Test
  void aKeyDeclaredByTwoOptionObjectsIsAnError() {
    SluiceConf conf = SluiceConf.of(Map.of("flush.threads", "8"), SERVER);
    ConfigOption<Long> asLong =
        ConfigOption.longValue(TestServerOptions.FLUSH_THREADS.key()).noDefault().doc("d").build();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> conf.get(asLong));
    assertTrue(e.getMessage().contains("'flush.threads' is declared twice"), e.getMessage());
  }

  @Test
  void anUnknownKeyIsRefused() {
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> SluiceConf.of(Map.of("shuffle.partitions", "10"), SERVER));
    assertEquals("Unknown key 'shuffle.partitions'.", e.getMessage());
  }

  @Test
  void anUnknownKeyNearAKnownOneGetsASuggestion() {
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> SluiceConf.of(Map.of("buffer.capactiy", "64m"), SERVER));
    assertEquals("Unknown key 'buffer.capactiy'. Did you mean 'buffer.capacity'?", e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () -> SluiceConf.of(Map.of("Memory_High_Watermark", "0.9"), SERVER));
    assertEquals(
        "Unknown key 'Memory_High_Watermark'. Did you mean 'memory.high-watermark'?",
        e.getMessage());
  }

  @Test
  void aKeyOfASetNotGivenIsUnknown() {
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> SluiceConf.of(Map.of("client.app-secret", "x"), SERVER));
    assertEquals("Unknown key 'client.app-secret'.", e.getMessage());
  }

  @Test
  void everyProblemIsReportedOnItsOwnLine() {
    Map<String, String> raw = new LinkedHashMap<>();
    raw.put("tls.enabled", "yes");
    raw.put("buffer.capacity", "banana");
    raw.put("flush.thread", "4");
    raw.put("io.mode", "epoll");
    raw.put("ring.size", "1000");
    ConfigException e = assertThrows(ConfigException.class, () -> SluiceConf.of(raw, SERVER));
    assertEquals(
        List.of(
            "Invalid value 'banana' for 'buffer.capacity': expected a size such as 512m, 4g or 1048576 (bytes).",
            "Unknown key 'flush.thread'. Did you mean 'flush.threads'?",
            "Invalid value '1000' for 'ring.size': must be a power of two; expected an integer, at least 1,"
                + " must be a power of two.",
            "Invalid value 'yes' for 'tls.enabled': expected true or false."),
        e.getMessage().lines().toList());
  }

  @Test
  void aRequiredOptionMustBeSet() {
    ConfigException e = assertThrows(ConfigException.class, () -> SluiceConf.of(Map.of(), BOTH));
    assertEquals(
        "Missing value for required 'client.coordinators': expected a comma-separated list.",
        e.getMessage());
    SluiceConf conf = SluiceConf.of(Map.of("client.coordinators", "c1:9000,c2:9000"), BOTH);
    assertEquals(List.of("c1:9000", "c2:9000"), conf.get(TestClientOptions.COORDINATORS));
    assertEquals(Optional.empty(), conf.getOptional(TestClientOptions.APP_SECRET));
  }

  @Test
  void crossOptionChecksRunAfterEveryValueIsValid() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                SluiceConf.of(
                    Map.of("memory.low-watermark", "0.9", "memory.high-watermark", "0.85"),
                    SERVER));
    assertEquals(
        "'memory.low-watermark' (0.9) must be below 'memory.high-watermark' (0.85).",
        e.getMessage());
    // Against a default: 0.8 is the default high watermark.
    assertThrows(
        ConfigException.class, () -> SluiceConf.of(Map.of("memory.low-watermark", "0.8"), SERVER));
    // An invalid value is reported alone: the cross check would trip over it.
    e =
        assertThrows(
            ConfigException.class,
            () ->
                SluiceConf.of(
                    Map.of("memory.low-watermark", "0.9", "memory.high-watermark", "high"),
                    SERVER));
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    assertTrue(e.getMessage().startsWith("Invalid value 'high' for 'memory.high-watermark'"));
  }

  @Test
  void crossOptionFailuresOfSeveralSetsAreAllReported() {
    ConfigOptionSet alwaysFails =
        new ConfigOptionSet() {
          @Override
          public String title() {
            return "Failing";
          }

          @Override
          public String description() {
            return "Always refuses.";
          }

          @Override
          public List<ConfigOption<?>> options() {
            return List.of();
          }

          @Override
          public void validate(SluiceConf conf) {
            throw new ConfigException("refused by the second set");
          }
        };
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                SluiceConf.of(
                    Map.of("memory.low-watermark", "0.9"),
                    List.of(new TestServerOptions(), alwaysFails)));
    assertEquals(
        List.of(
            "'memory.low-watermark' (0.9) must be below 'memory.high-watermark' (0.8).",
            "refused by the second set"),
        e.getMessage().lines().toList());
  }

  @Test
  void aKeyDefinedByTwoSetsIsAProgrammingError() {
    ConfigOptionSet clash =
        new ConfigOptionSet() {
          @Override
          public String title() {
            return "Clash";
          }

          @Override
          public String description() {
            return "Defines a key of the test server again.";
          }

          @Override
          public List<ConfigOption<?>> options() {
            String key = TestServerOptions.BUFFER_CAPACITY.key();
            return List.of(ConfigOption.bytes(key).noDefault().doc("d").build());
          }
        };
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> SluiceConf.of(Map.of(), List.of(new TestServerOptions(), clash)));
    assertEquals(
        "Option key 'buffer.capacity' is defined twice: in '"
            + TestServerOptions.TITLE
            + "' and in 'Clash'",
        e.getMessage());
  }

  @Test
  void theSameValidValuesGiveEqualResultsFromEveryEntryPoint() {
    Map<String, String> raw = Map.of("flush.timeout", "5min", "read.buffer.capacity", "2g");
    SluiceConf a = SluiceConf.of(raw, SERVER);
    SluiceConf b = ConfigLoader.fromMap(raw, SERVER);
    assertEquals(a.toMap(), b.toMap());
    assertEquals(Duration.ofMinutes(5), b.get(TestServerOptions.FLUSH_TIMEOUT));
    assertEquals(2L << 30, b.get(TestServerOptions.READ_BUFFER_CAPACITY));
    assertThrows(
        ConfigException.class, () -> ConfigLoader.fromMap(Map.of("flush.timeout", "5"), SERVER));
  }
}
