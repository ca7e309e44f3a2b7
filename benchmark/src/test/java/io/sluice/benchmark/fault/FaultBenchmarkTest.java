package io.sluice.benchmark.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FaultBenchmarkTest {
  @Test
  void onlyTheNetworksFaultsNeedTheTestBed() {
    for (FaultBenchmarkJob.Scenario s : FaultBenchmarkJob.Scenario.values()) {
      boolean network = s.name().startsWith("CUT_") || s == FaultBenchmarkJob.Scenario.SLOW;
      assertEquals(network, s.needsBed(), s.name());
    }
  }
}
