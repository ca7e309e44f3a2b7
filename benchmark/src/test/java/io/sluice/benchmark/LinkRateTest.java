package io.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LinkRateTest {
  @Test
  void aSlowServersLinkIsATenthOfTheOthersInTcsNotation() {
    assertEquals("100mbit", LinkRate.parse("1gbit").tenth().toString());
    assertEquals("1gbit", LinkRate.parse("10gbit").tenth().toString());
    assertEquals("250kbit", LinkRate.parse("2500kbit").tenth().toString());
    assertEquals("50mbit", LinkRate.parse("500mbit").tenth().toString());
    assertEquals("500bit", LinkRate.parse("5kbit").tenth().toString());
    assertEquals("1500bit", LinkRate.parse("15kbit").tenth().toString());
  }

  @Test
  void readsTcsUnitsAsBitsPerSecond() {
    assertEquals(1_000_000_000L, LinkRate.parse("1gbit").bitsPerSecond());
    assertEquals(10_000_000_000L, LinkRate.parse("10Gbit").bitsPerSecond());
    assertEquals(1_000_000L, LinkRate.parse("1mbit").bitsPerSecond());
    assertEquals(800L, LinkRate.parse("800bit").bitsPerSecond());
  }

  @Test
  void refusesWhatTcWouldNotTake() {
    for (String wrong : new String[] {"1 Gbps", "0mbit", "fast", "1.5gbit"}) {
      assertThrows(IllegalArgumentException.class, () -> LinkRate.parse(wrong), wrong);
    }
  }
}
