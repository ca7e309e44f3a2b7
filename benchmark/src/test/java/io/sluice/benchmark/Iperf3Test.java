package io.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Reading iperf3's JSON summary: the received rate and what both processes' CPU cost per GiB. */
class Iperf3Test {
  /** The end of an iperf3 3.12 {@code -J} report, trimmed to the keys read. */
  private static final String REPORT =
      """
      {"intervals": [{"sum": {"bits_per_second": 1.0e9}}],
       "end": {"sum_sent": {"bits_per_second": 8.6e9},
               "sum_received": {"bytes": 5368709120, "bits_per_second": 8589934592},
               "cpu_utilization_percent": {"host_total": 40.0, "host_user": 1.5,
                 "host_system": 38.5, "remote_total": 60.0, "remote_user": 2.0,
                 "remote_system": 58.0}}}
      """;

  @Test
  void readsTheReceivedRateAndTheCpuOfBothEndsPerGib() throws IOException {
    Iperf3.Measurement m = Iperf3.parse(REPORT);
    assertEquals(8589934592.0, m.bitsPerSecond());
    // 1 GiB/s received while the two processes kept 1.0 core busy between them.
    assertEquals(1.0, m.cpuSecondsPerGib(), 1e-9);
    // The server's 60% of a core is the receiving end's share.
    assertEquals(0.6, m.receiverCpuSecondsPerGib(), 1e-9);
  }

  @Test
  void aReportWithoutCpuFiguresIsAnError() {
    IOException e =
        assertThrows(
            IOException.class,
            () -> Iperf3.parse("{\"end\": {\"sum_received\": {\"bits_per_second\": 8.0e9}}}"));
    assertTrue(e.getMessage().contains("cpu_utilization_percent"), e.getMessage());
  }
}
