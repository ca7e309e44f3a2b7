package io.sluice.coordinator;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.coordinator.CoordinatorAddress;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** Coordinators on ephemeral loopback ports, clients for them, and HTTP calls. */
public final class CoordinatorTestSupport {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private CoordinatorTestSupport() {}

  /** A coordinator's settings for tests: loopback, free ports, small thread pools. */
  public static SluiceConf conf() {
    return SluiceConf.empty()
        .with(CoordinatorOptions.BIND_HOST, "127.0.0.1")
        .with(CoordinatorOptions.PORT, "0")
        .with(CoordinatorOptions.HTTP_PORT, "0")
        .with(TransportOptions.SERVER_THREADS, "1")
        .with(TransportOptions.CLIENT_THREADS, "1");
  }

  public static CoordinatorServer start(SluiceConf conf) {
    return CoordinatorServer.start(conf, Clock.systemUTC());
  }

  public static TransportClientFactory clientFactory() {
    return new TransportContext(
            new TransportConf(conf()), "test-client", PooledByteBufAllocator.DEFAULT)
        .createClientFactory();
  }

  public static CoordinatorAddress address(CoordinatorServer coordinator) {
    return new CoordinatorAddress("127.0.0.1", coordinator.port());
  }

  public static CoordinatorClient client(
      TransportClientFactory factory, CoordinatorServer... coordinators) {
    return new CoordinatorClient(
        factory,
        List.of(coordinators).stream().map(CoordinatorTestSupport::address).toList(),
        Duration.ofSeconds(5));
  }

  public static HttpResponse<String> get(int port, String path)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public static HttpResponse<String> post(int port, String path)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
