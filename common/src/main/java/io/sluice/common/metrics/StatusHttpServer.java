package io.sluice.common.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP port of a daemon: {@code /metrics} in Prometheus text format, {@code /status} as JSON,
 * {@code /ready} (200 when the daemon takes new work, 503 with the reason otherwise: what a
 * Kubernetes readiness probe asks), and any extra handlers a daemon adds (admin actions). Runs on a
 * few threads of its own, off the data path.
 */
public final class StatusHttpServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusHttpServer.class);

  private final HttpServer server;
  private final HTTPServer exporter;

  /**
   * @param status what {@code /status} shows
   * @param notReadyReason why the daemon takes no new work, or null when it does
   */
  public StatusHttpServer(
      String host,
      int port,
      CollectorRegistry registry,
      Supplier<Object> status,
      Supplier<String> notReadyReason)
      throws IOException {
    this.server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.createContext(
        "/status",
        exchange -> respond(exchange, 200, "application/json", Json.write(status.get())));
    server.createContext(
        "/ready",
        exchange -> {
          String reason = notReadyReason.get();
          respond(
              exchange,
              reason == null ? 200 : 503,
              "text/plain; charset=utf-8",
              (reason == null ? "ready" : "not ready: " + reason) + "\n");
        });
    // Prometheus' exporter adds /metrics (and / and /-/healthy), gives the server its own small
    // daemon thread pool and starts it.
    this.exporter =
        new HTTPServer.Builder()
            .withHttpServer(server)
            .withRegistry(registry)
            .withDaemonThreads(true)
            .build();
    LOG.info("HTTP status server on {}:{}", host, port());
  }

  /** Adds a handler under {@code path}, e.g. an admin action. */
  public void addHandler(String path, HttpHandler handler) {
    server.createContext(path, handler);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Writes a complete response and closes the exchange. */
  public static void respond(HttpExchange exchange, int code, String contentType, String body)
      throws IOException {
    try (exchange) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", contentType);
      exchange.sendResponseHeaders(code, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    exporter.close();
  }
}
