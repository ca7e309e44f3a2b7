package io.sluice.common.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonReaderTest {
  @Test
  void readsBackWhatJsonWrites() {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("id", "s1@host:9\"\\\n\u0001é");
    value.put("count", 42L);
    value.put("ratio", 0.25);
    value.put("ok", true);
    value.put("none", null);
    value.put("list", List.of(1L, "two", List.of(), Map.of()));
    assertEquals(value, JsonReader.parse(Json.write(value)));
  }

  @Test
  void acceptsSpacesAndEscapesOfOtherWriters() {
    assertEquals(
        Map.of("a", Arrays.asList(1L, -2L, 3.5e2, "\t/")),
        JsonReader.parse(" { \"a\" : [ 1 , -2 , 3.5e2 , \"\\t\\/\" ] } "));
  }

  @Test
  void malformedTextFailsNamingWhere() {
    for (String bad :
        List.of(
            "",
            "{",
            "{\"a\" 1}",
            "[1,]",
            "\"open",
            "tru",
            "{} x",
            "{a:1}",
            "\"\\x\"",
            "\"\\u12\"")) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("malformed JSON at character "), e.getMessage());
    }
  }
}
