package io.sluice.coordinator.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.sluice.common.auth.AuthOptions;
import io.sluice.common.auth.Secret;
import io.sluice.common.metrics.Json;
import io.sluice.common.metrics.StatusHttpServer;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.exclusion.ExclusionReason;
import io.sluice.coordinator.registry.ServerRegistry;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin actions on the HTTP port, each {@code POST <path>?server=<id>}, answered with JSON:
 * {@code /admin/exclude} (no new work until included), {@code /admin/include} (lifts an admin
 * exclusion or decommission; not an entry of the exclusion file), and {@code /admin/decommission}
 * (no new work; forgotten once the server leaves the registry).
 */
public final class AdminHandler implements HttpHandler {
  /** Every path under it reaches this handler, so that a mistyped action gets a clear 404. */
  public static final String PREFIX = "/admin/";

  public static final String EXCLUDE = "/admin/exclude";
  public static final String INCLUDE = "/admin/include";
  public static final String DECOMMISSION = "/admin/decommission";

  private static final Logger LOG = LoggerFactory.getLogger(AdminHandler.class);

  private final ServerRegistry servers;
  private final ExclusionList exclusions;
  private final byte[] token;

  /** Why calls are refused without a token, or null when they are not. */
  private final String closedWithoutToken;

  /**
   * @param token what callers must send as {@code Authorization: Bearer <token>}; null for none
   * @param authenticated whether the cluster authenticates its connections (an open admin port
   *     would then be its weakest door)
   * @param bindHost the address the HTTP port listens on: off loopback, anyone on the network could
   *     reach an open admin port
   */
  public AdminHandler(
      ServerRegistry servers, Secret token, boolean authenticated, String bindHost) {
    this.servers = servers;
    this.exclusions = servers.exclusions();
    this.token =
        token == null
            ? null
            : ("Bearer " + new String(token.copyOfBytes(), StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
    if (token != null) {
      this.closedWithoutToken = null;
    } else if (authenticated) {
      this.closedWithoutToken = "authentication is on ('" + AuthOptions.ENABLED.key() + "')";
    } else if (!AuthOptions.isLoopback(bindHost)) {
      this.closedWithoutToken =
          "the HTTP port listens on "
              + bindHost
              + " ('"
              + CoordinatorOptions.BIND_HOST.key()
              + "'), off loopback";
    } else {
      this.closedWithoutToken = null;
    }
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (closedWithoutToken != null) {
      reply(
          exchange,
          403,
          error(
              "admin calls are disabled: "
                  + closedWithoutToken
                  + " and no admin token is configured ('"
                  + CoordinatorOptions.ADMIN_TOKEN_FILE.key()
                  + "')"));
      return;
    }
    if (token != null && !authorized(exchange)) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      reply(
          exchange,
          401,
          error(
              "send the admin token as 'Authorization: Bearer <token>' ("
                  + CoordinatorOptions.ADMIN_TOKEN_FILE.key()
                  + ")"));
      LOG.warn(
          "Refused an admin call from {} to {}: missing or wrong token",
          exchange.getRemoteAddress(),
          path);
      return;
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      exchange.getResponseHeaders().set("Allow", "POST");
      reply(exchange, 405, error("use POST " + path + "?server=<id>"));
      return;
    }
    String server;
    try {
      server = queryParameter(exchange.getRequestURI().getRawQuery(), "server");
    } catch (IllegalArgumentException e) {
      reply(exchange, 400, error("malformed query: " + e.getMessage()));
      return;
    }
    if (server == null || server.isBlank()) {
      reply(exchange, 400, error("name the server: POST " + path + "?server=<id>"));
      return;
    }
    boolean known = servers.get(server) != null;
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("server", server);
    answer.put("registered", known);
    switch (path) {
      case EXCLUDE -> {
        exclusions.exclude(server);
        answer.put("action", "excluded");
      }
      case INCLUDE -> {
        ExclusionReason still = exclusions.include(server);
        answer.put("action", "included");
        if (still != null) {
          answer.put("stillExcludedBy", still.name().toLowerCase());
        }
      }
      case DECOMMISSION -> {
        if (!known) {
          reply(exchange, 404, error("server " + server + " is not registered"));
          return;
        }
        exclusions.decommission(server);
        answer.put("action", "decommissioning");
      }
      default -> {
        reply(
            exchange,
            404,
            error(
                "no admin action at "
                    + path
                    + "; use "
                    + EXCLUDE
                    + ", "
                    + INCLUDE
                    + " or "
                    + DECOMMISSION));
        return;
      }
    }
    ExclusionReason reason = exclusions.reasonFor(server);
    answer.put("exclusion", reason == null ? "none" : reason.name().toLowerCase());
    LOG.info(
        "Admin request from {}: {} {} -> {}",
        exchange.getRemoteAddress(),
        path,
        server,
        answer.get("exclusion"));
    reply(exchange, 200, answer);
  }

  private boolean authorized(HttpExchange exchange) {
    String given = exchange.getRequestHeaders().getFirst("Authorization");
    return given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, Object> error(String message) {
    return Map.of("error", message);
  }

  private static void reply(HttpExchange exchange, int code, Map<String, Object> body)
      throws IOException {
    StatusHttpServer.respond(exchange, code, "application/json", Json.write(body));
  }

  static String queryParameter(String rawQuery, String name) {
    if (rawQuery == null) {
      return null;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      if (key.equals(name)) {
        return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }
}
