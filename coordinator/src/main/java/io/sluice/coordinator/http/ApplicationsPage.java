package io.sluice.coordinator.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.sluice.common.metrics.Json;
import io.sluice.common.metrics.StatusHttpServer;
import io.sluice.coordinator.app.ApplicationRegistry;
import io.sluice.coordinator.app.AssignedShuffle;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /applications}: the live applications, each with the shuffles this coordinator
 * assigned it (partitions, copies, the servers named, relocations), as JSON. Apart from {@code
 * /status}, whose size must not grow with every shuffle of every application.
 */
public final class ApplicationsPage implements HttpHandler {
  public static final String PATH = "/applications";

  private final ApplicationRegistry apps;
  private final Clock clock;

  public ApplicationsPage(ApplicationRegistry apps, Clock clock) {
    this.apps = apps;
    this.clock = clock;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestMethod().equals("GET")) {
      StatusHttpServer.respond(exchange, 405, "text/plain; charset=utf-8", "GET only\n");
      return;
    }
    StatusHttpServer.respond(exchange, 200, "application/json", Json.write(build()));
  }

  List<Object> build() {
    long now = clock.millis();
    List<Object> list = new ArrayList<>();
    for (ApplicationRegistry.Registered app : apps.applications()) {
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("id", app.appId());
      a.put("user", app.user());
      a.put("lastHeartbeatAgeMillis", now - app.lastSeenMillis());
      List<Object> shuffles = new ArrayList<>();
      for (AssignedShuffle s : app.shuffles()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("shuffleId", s.shuffleId());
        m.put("partitions", s.partitions());
        m.put("copies", s.copies());
        m.put("servers", s.serverIds());
        m.put("relocations", s.relocations());
        m.put("assignedAgeMillis", now - s.firstAssignedMillis());
        shuffles.add(m);
      }
      a.put("shuffles", shuffles);
      list.add(a);
    }
    return list;
  }
}
