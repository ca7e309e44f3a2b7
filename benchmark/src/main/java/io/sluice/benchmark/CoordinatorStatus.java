package io.sluice.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What a running deployment's coordinator says of its servers, on its {@code /status} page. */
public final class CoordinatorStatus {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CoordinatorStatus() {}

  /**
   * The {@code host:port} of each listed server's HTTP endpoint (docs/coordinator.md, {@code
   * /status}); servers without one, or stale, are left out, and an unreachable coordinator lists
   * none.
   *
   * @param coordinatorHttp the coordinator's HTTP {@code host:port}
   */
  public static List<String> serverHttpAddresses(String coordinatorHttp)
      throws InterruptedException {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://" + coordinatorHttp + "/status"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return List.of();
      }
      List<String> addresses = new ArrayList<>();
      for (JsonNode server : JSON.readTree(response.body()).path("servers")) {
        int port = server.path("httpPort").asInt(-1);
        // A stale server has stopped heart-beating: scraping it would only wait out timeouts.
        if (port > 0 && !"stale".equals(server.path("condition").asText())) {
          addresses.add(server.path("host").asText() + ":" + port);
        }
      }
      return addresses;
    } catch (IOException | IllegalArgumentException e) {
      return List.of();
    }
  }
}
