package io.sluice.client.spark.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FetchSettingsTest {

  @Test
  void takesTheClientsSettings() {
    FetchSettings s = FetchSettings.from(SluiceConf.empty()
        .with(SluiceClientOptions.FETCH_MAX_IN_FLIGHT, "10m")
        .with(SluiceClientOptions.FETCH_MAX_REQUEST, "2m")
        .with(SluiceClientOptions.RETRY_WAIT, "30ms")
        .with(SluiceClientOptions.PUSH_RETRIES, "4"));
    assertEquals(new FetchSettings(10L << 20, 2 << 20, Duration.ofMillis(30), 4), s);
  }

  @Test
  void oneReadStaysWithinTheBytesInFlightAndHalfTheFrameLimit() {
    FetchSettings s = FetchSettings.from(SluiceConf.empty()
        .with(SluiceClientOptions.FETCH_MAX_IN_FLIGHT, "48m")
        .with(SluiceClientOptions.FETCH_MAX_REQUEST, "40m"));
    assertEquals(32 << 20, s.maxRequestBytes(), "half of the default 64m frame");
    s = FetchSettings.from(SluiceConf.empty()
        .with(SluiceClientOptions.FETCH_MAX_IN_FLIGHT, "2m")
        .with(SluiceClientOptions.FETCH_MAX_REQUEST, "8m")
        .with(TransportOptions.MAX_FRAME_SIZE, "128m"));
    assertEquals(2 << 20, s.maxRequestBytes());
  }

  @Test
  void backOffDoublesUpToTwoSeconds() {
    FetchSettings s = new FetchSettings(1 << 20, 1 << 16, Duration.ofMillis(50), 20);
    assertEquals(50, s.backoffMillis(0));
    assertEquals(100, s.backoffMillis(1));
    assertEquals(1600, s.backoffMillis(5));
    assertEquals(2000, s.backoffMillis(6));
    assertEquals(2000, s.backoffMillis(60));
  }
}
