package io.sluice.client.core.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.common.shuffle.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FetchSettingsTest {
  private static final Backoff BACKOFF =
      new Backoff(Duration.ofMillis(30), Duration.ofSeconds(2), 4);

  @Test
  void takesTheGivenSettingsWhenTheyFit() {
    FetchSettings s = FetchSettings.of(10L << 20, 2 << 20, 64L << 20, BACKOFF);
    assertEquals(new FetchSettings(10L << 20, 2 << 20, BACKOFF), s);
  }

  @Test
  void oneReadStaysWithinTheBytesInFlightAndHalfTheFrameLimit() {
    FetchSettings s = FetchSettings.of(48L << 20, 40L << 20, 64L << 20, BACKOFF);
    assertEquals(32 << 20, s.maxRequestBytes(), "half of a 64m frame");
    s = FetchSettings.of(2L << 20, 8L << 20, 128L << 20, BACKOFF);
    assertEquals(2 << 20, s.maxRequestBytes());
  }

  @Test
  void rejectsEmptyBudgets() {
    assertThrows(IllegalArgumentException.class, () -> new FetchSettings(0, 1, BACKOFF));
    assertThrows(IllegalArgumentException.class, () -> new FetchSettings(1, 0, BACKOFF));
  }

  @Test
  void backOffDoublesUpToItsMaximum() {
    Backoff b = new Backoff(Duration.ofMillis(50), Backoff.DEFAULT_MAX_WAIT, 20);
    assertEquals(50, b.delayMillis(0));
    assertEquals(100, b.delayMillis(1));
    assertEquals(1600, b.delayMillis(5));
    assertEquals(2000, b.delayMillis(6));
    assertEquals(2000, b.delayMillis(60));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(3), Duration.ofSeconds(2), 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofMillis(1), Duration.ofSeconds(2), -1));
  }
}
