package io.sluice.coordinator.admin;

import io.sluice.common.auth.Secret;
import io.sluice.common.metrics.JsonReader;
import io.sluice.coordinator.CoordinatorOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's HTTP API as the admin command uses it: {@code GET /status} and the {@code POST
 * /admin/*} actions, with the admin token when one is given. Every failure becomes an {@link
 * AdminException} whose message says what to change.
 */
final class AdminClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final String address;
  private final Secret token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  /**
   * @param address the coordinator's HTTP port as {@code host:port}
   * @param token the admin token, or null to send none
   */
  AdminClient(String address, Secret token) {
    this.address = address;
    this.token = token;
  }

  /** The coordinator's {@code /status}, parsed. */
  @SuppressWarnings("unchecked")
  Map<String, Object> status() throws AdminException {
    return (Map<String, Object>) JsonReader.parse(send(request("/status").GET().build()));
  }

  /** The coordinator's {@code /applications}, parsed: applications with their shuffles. */
  @SuppressWarnings("unchecked")
  List<Object> applications() throws AdminException {
    return (List<Object>) JsonReader.parse(send(request("/applications").GET().build()));
  }

  /** Runs an admin action on {@code server}; returns the coordinator's JSON answer. */
  String action(String action, String server) throws AdminException {
    HttpRequest.Builder request =
        request("/admin/" + action + "?server=" + URLEncoder.encode(server, StandardCharsets.UTF_8))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header(
          "Authorization", "Bearer " + new String(token.copyOfBytes(), StandardCharsets.UTF_8));
    }
    return send(request.build());
  }

  private HttpRequest.Builder request(String path) throws AdminException {
    try {
      return HttpRequest.newBuilder(URI.create("http://" + address + path)).timeout(TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new AdminException(
          "'"
              + address
              + "' is not a coordinator address: give --coordinator"
              + " as host:port of its HTTP port ("
              + CoordinatorOptions.HTTP_PORT.key()
              + ")");
    }
  }

  private String send(HttpRequest request) throws AdminException {
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException | HttpTimeoutException e) {
      throw new AdminException(
          "cannot reach the coordinator's HTTP port at "
              + address
              + " ("
              + e
              + "): give --coordinator as host:port of its "
              + CoordinatorOptions.HTTP_PORT.key());
    } catch (IOException e) {
      throw new AdminException("the coordinator at " + address + " did not answer: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminException("interrupted");
    }
    int code = response.statusCode();
    if (code == 200) {
      return response.body();
    }
    String reason = errorOf(response.body());
    if (code == 401) {
      throw new AdminException(
          "the coordinator wants the admin token: give --token-file, the "
              + "file its "
              + CoordinatorOptions.ADMIN_TOKEN_FILE.key()
              + " names ("
              + reason
              + ")");
    }
    throw new AdminException(
        "the coordinator refused " + request.uri().getPath() + " (HTTP " + code + "): " + reason);
  }

  /** The {@code error} of a JSON answer, or the answer itself. */
  private static String errorOf(String body) {
    try {
      if (JsonReader.parse(body) instanceof Map<?, ?> map && map.get("error") != null) {
        return map.get("error").toString();
      }
    } catch (IllegalArgumentException e) {
      // not JSON: shown as it is
    }
    return body;
  }
}
