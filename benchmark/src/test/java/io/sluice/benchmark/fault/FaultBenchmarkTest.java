package io.sluice.benchmark.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FaultBenchmarkTest {
  @Test
  void aSlowServersLinkIsATenthOfTheOthersInTcsNotation() {
    assertEquals("100mbit", FaultBenchmark.tenth("1gbit"));
    assertEquals("1gbit", FaultBenchmark.tenth("10gbit"));
    assertEquals("250kbit", FaultBenchmark.tenth("2500kbit"));
    assertEquals("50mbit", FaultBenchmark.tenth("500mbit"));
    assertEquals("500bit", FaultBenchmark.tenth("5kbit"));
    assertEquals("1500bit", FaultBenchmark.tenth("15kbit"));
  }

  @Test
  void aRateTcWouldNotTakeNamesTheFlag() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FaultBenchmark.tenth("1 Gbps"));
    assertTrue(e.getMessage().contains("--link-rate"), e.getMessage());
  }

  @Test
  void onlyTheNetworksFaultsNeedTheTestBed() {
    for (FaultBenchmarkJob.Scenario s : FaultBenchmarkJob.Scenario.values()) {
      boolean network = s.name().startsWith("CUT_") || s == FaultBenchmarkJob.Scenario.SLOW;
      assertEquals(network, s.needsBed(), s.name());
    }
  }
}
