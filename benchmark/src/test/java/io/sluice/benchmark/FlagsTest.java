package io.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagsTest {
  private static final Flags FLAGS =
      new Flags("Usage: example [flags]")
          .option("rounds", "N", "3", "rounds of every case")
          .option("clients", "LIST", "1,4", "client counts")
          .option("output", "FILE|-", "out.md", "where the section goes")
          .option("home", "DIR", "the checkout")
          .toggle("no-iperf", "do not run iperf3")
          .pairs("conf", "an extra setting (repeatable)");

  @Test
  void readsGivenValuesAndDefaultsByType() {
    Flags.Values v =
        FLAGS.parse(
            new String[] {"--rounds", "5", "--no-iperf", "--conf", "a=1", "--conf", "b=x=y"});
    assertEquals(5, v.positive("rounds"));
    assertEquals(List.of(1, 4), v.positiveList("clients", 16));
    assertEquals(Path.of("out.md"), v.pathOrNone("output"));
    assertNull(v.path("home"));
    assertEquals("fallback", v.text("home", "fallback"));
    assertTrue(v.given("no-iperf"));
    assertFalse(v.given("clients"));
    assertEquals(Map.of("a", "1", "b", "x=y"), v.pairs("conf"));
    assertEquals("--rounds 5 --no-iperf --conf a=1 --conf b=x=y", v.arguments());
  }

  @Test
  void aDashOutputPrintsOnly() {
    assertNull(FLAGS.parse(new String[] {"--output", "-"}).pathOrNone("output"));
  }

  @Test
  void everyErrorNamesTheFlagAndEndsWithTheUsage() {
    Map<String[], String> wrong =
        Map.of(
            new String[] {"--round", "5"}, "unknown flag '--round'",
            new String[] {"rounds"}, "unknown flag 'rounds'",
            new String[] {"--rounds"}, "--rounds needs a value",
            new String[] {"--conf", "a"}, "--conf takes key=value, got 'a'");
    wrong.forEach(
        (args, message) -> {
          IllegalArgumentException e =
              assertThrows(IllegalArgumentException.class, () -> FLAGS.parse(args));
          assertTrue(e.getMessage().startsWith(message + "\nUsage: example"), e.getMessage());
        });
    Map<String, String> values =
        Map.of(
            "0", "--rounds must be at least 1, got 0",
            "three", "--rounds takes a whole number, got 'three'");
    values.forEach(
        (value, message) -> {
          Flags.Values v = FLAGS.parse(new String[] {"--rounds", value});
          IllegalArgumentException e =
              assertThrows(IllegalArgumentException.class, () -> v.positive("rounds"));
          assertTrue(e.getMessage().startsWith(message + "\n"), e.getMessage());
        });
    Flags.Values v = FLAGS.parse(new String[] {"--clients", "2,40"});
    assertThrows(IllegalArgumentException.class, () -> v.positiveList("clients", 16));
    assertThrows(IllegalArgumentException.class, () -> v.required("home"));
  }

  @Test
  void theUsageStatesEveryFlagWithItsDefaultWithinEightyColumns() {
    String usage = FLAGS.usage();
    assertTrue(usage.startsWith("Usage: example [flags]\n"), usage);
    assertTrue(usage.contains("  --rounds N"), usage);
    assertTrue(usage.contains("rounds of every case (default 3)"), usage);
    assertTrue(usage.contains("  --conf k=v"), usage);
    assertTrue(usage.contains("  --no-iperf"), usage);
    for (String line : usage.split("\n")) {
      assertTrue(line.length() <= 80, line);
    }
  }

  @Test
  void aFlagIsDeclaredOnce() {
    Flags flags = new Flags("Usage: x").toggle("a", "a switch");
    assertThrows(IllegalStateException.class, () -> flags.option("a", "N", "a number"));
  }
}
