package io.sluice.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeySuggesterTest {
  private static final List<String> KNOWN =
      List.of("buffer.capacity", "read.buffer.capacity", "flush.threads", "io.mode", "io.mods");

  @ParameterizedTest
  @CsvSource({
    "'', '', 0",
    "'', abc, 3",
    "abc, abc, 0",
    "abc, abd, 1",
    "abcd, acbd, 1",
    "abc, ab, 1",
    "ab, abc, 1",
    "kitten, sitting, 3",
    // A transposition and an insertion in between: 2 here, 3 under the restricted variant.
    "ca, abc, 2",
    "capacity, capactiy, 1",
  })
  void damerauLevenshteinDistance(String a, String b, int distance) {
    assertEquals(distance, KeySuggester.distance(a, b));
    assertEquals(distance, KeySuggester.distance(b, a));
  }

  @ParameterizedTest
  @CsvSource({
    "buffer.capactiy, buffer.capacity",
    "bufer.capacity, buffer.capacity",
    "buffer.capacityy, buffer.capacity",
    "BUFFER.CAPACITY, buffer.capacity",
    "buffer_capacity, buffer.capacity",
    "Buffer-Capacity, buffer.capacity",
    "buffercapacity, buffer.capacity",
    "read.bufer.capacity, read.buffer.capacity",
    "flush.thread, flush.threads",
    "flush-threads, flush.threads",
  })
  void suggestsTheKeyMeant(String typo, String meant) {
    assertEquals(Optional.of(meant), KeySuggester.suggest(typo, KNOWN));
  }

  @Test
  void suggestsNothingBeyondTwoEdits() {
    assertEquals(Optional.empty(), KeySuggester.suggest("buffer.size", KNOWN));
    assertEquals(Optional.empty(), KeySuggester.suggest("bfr.capacty", KNOWN));
    assertEquals(Optional.empty(), KeySuggester.suggest("anything", List.of()));
  }

  @Test
  void prefersTheClosestThenTheAlphabeticallyFirst() {
    assertEquals(Optional.of("io.mode"), KeySuggester.suggest("io.mode_", KNOWN));
    assertEquals(Optional.of("io.mods"), KeySuggester.suggest("io.modss", KNOWN));
    assertEquals(Optional.of("io.mode"), KeySuggester.suggest("io.modx", KNOWN));
    assertEquals(
        Optional.of("io.mode"), KeySuggester.suggest("io.modx", List.of("io.mods", "io.mode")));
  }
}
