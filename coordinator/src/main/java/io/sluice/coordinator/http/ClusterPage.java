package io.sluice.coordinator.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.sluice.common.metrics.StatusHttpServer;
import io.sluice.common.text.Html;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /cluster}: the coordinator's view of the cluster as one self-contained HTML page (no
 * scripts, no external assets, reloading itself every 5 s), rendered from the same content as
 * {@code /status}. Every value is escaped: server ids, hosts, tags and user names come from peers.
 */
public final class ClusterPage implements HttpHandler {
  public static final String PATH = "/cluster";

  private final Supplier<Map<String, Object>> status;

  public ClusterPage(Supplier<Map<String, Object>> status) {
    this.status = status;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      StatusHttpServer.respond(exchange, 405, "text/plain; charset=utf-8", "GET only\n");
      return;
    }
    StatusHttpServer.respond(exchange, 200, "text/html; charset=utf-8", render(status.get()));
  }

  /** The page for a {@code /status} content. */
  static String render(Map<String, Object> s) {
    StringBuilder b = new StringBuilder(4096);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta http-equiv=\"refresh\" content=\"5\">")
        .append("<title>Sluice cluster: ")
        .append(Html.escape(s.get("coordinator")))
        .append("</title>")
        .append("<style>body{font:14px sans-serif;margin:1.5em;color:#222}")
        .append("table{border-collapse:collapse;margin:.5em 0 1.5em}")
        .append("th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}")
        .append("th{background:#f3f3f3}td.num{text-align:right}")
        .append(".active{color:#17692a}.stale,.unhealthy{color:#b00020}")
        .append(".decommissioning,.excluded{color:#a05a00}")
        .append(".bar{display:inline-block;width:6em;height:.7em;background:#e6e6e6;")
        .append("margin-right:.4em}.bar span{display:block;height:100%;background:#4a7bd0}")
        .append("</style></head><body>\n");
    b.append("<h1>Sluice cluster</h1>\n<p>Coordinator <b>")
        .append(Html.escape(s.get("coordinator")))
        .append("</b>, up ")
        .append(Html.escape(s.get("uptimeSeconds")))
        .append(" s; servers are stale after ")
        .append(Html.escape(s.get("heartbeatTimeoutMillis")))
        .append(" ms without a heart-beat.</p>\n");

    b.append("<h2>Servers</h2>\n<p id=\"server-counts\">");
    Map<String, Object> counts = map(s.get("serverCounts"));
    boolean first = true;
    for (Map.Entry<String, Object> e : counts.entrySet()) {
      b.append(first ? "" : ", ")
          .append(Html.escape(e.getKey()))
          .append(": ")
          .append(Html.escape(e.getValue()));
      first = false;
    }
    b.append("</p>\n<table id=\"servers\"><tr><th>Server</th><th>Address</th><th>Condition</th>")
        .append("<th>Reported state</th><th>Push memory</th><th>Read memory</th>")
        .append("<th>Partitions held</th><th>Partitions pending</th><th>Disks (healthy / all)</th>")
        .append("<th>Disk used</th><th>Last heart-beat</th><th>Version</th></tr>\n");
    for (Object o : list(s.get("servers"))) {
      Map<String, Object> server = map(o);
      String condition = String.valueOf(server.get("condition"));
      List<Object> disks = list(server.get("disks"));
      long healthy = disks.stream().filter(d -> Boolean.TRUE.equals(map(d).get("healthy"))).count();
      long used = disks.stream().mapToLong(d -> number(map(d).get("usedBytes"))).sum();
      long total = disks.stream().mapToLong(d -> number(map(d).get("totalBytes"))).sum();
      b.append("<tr><td>")
          .append(Html.escape(server.get("id")))
          .append("</td><td>")
          .append(Html.escape(server.get("host")))
          .append(':')
          .append(Html.escape(server.get("port")))
          .append(" (HTTP ")
          .append(Html.escape(server.get("httpPort")))
          .append(")</td><td class=\"")
          .append(Html.escape(condition))
          .append("\">")
          .append(Html.escape(condition))
          .append("</td><td>")
          .append(Html.escape(server.get("reportedState")))
          .append("</td><td>");
      usage(b, number(server.get("pushBufferUsed")), number(server.get("pushBufferCapacity")));
      b.append("</td><td>");
      usage(b, number(server.get("readBufferUsed")), number(server.get("readBufferCapacity")));
      b.append("</td><td class=\"num\">")
          .append(Html.escape(server.get("partitionsHeld")))
          .append("</td><td class=\"num\">")
          .append(Html.escape(server.get("partitionsPending")))
          .append("</td><td class=\"num\">")
          .append(healthy)
          .append(" / ")
          .append(disks.size())
          .append("</td><td>");
      usage(b, used, total);
      b.append("</td><td class=\"num\">")
          .append(Html.escape(server.get("lastHeartbeatAgeMillis")))
          .append(" ms ago</td><td>")
          .append(Html.escape(server.get("version")))
          .append("</td></tr>\n");
    }
    b.append("</table>\n");

    Map<String, Object> excluded = map(s.get("excluded"));
    if (!excluded.isEmpty()) {
      b.append(
          "<h2>Exclusions</h2>\n<table id=\"exclusions\"><tr><th>Server</th><th>Why</th></tr>\n");
      for (Map.Entry<String, Object> e : excluded.entrySet()) {
        b.append("<tr><td>")
            .append(Html.escape(e.getKey()))
            .append("</td><td>")
            .append(Html.escape(e.getValue()))
            .append("</td></tr>\n");
      }
      b.append("</table>\n");
    }

    Map<String, Object> apps = map(s.get("applications"));
    b.append("<h2>Applications</h2>\n<p id=\"applications\">")
        .append(Html.escape(apps.get("registered")))
        .append(" registered</p>\n");
    Map<String, Object> byUser = map(apps.get("byUser"));
    if (!byUser.isEmpty()) {
      b.append("<table id=\"users\"><tr><th>User</th><th>Applications</th></tr>\n");
      for (Map.Entry<String, Object> e : byUser.entrySet()) {
        b.append("<tr><td>")
            .append(Html.escape(e.getKey()))
            .append("</td><td class=\"num\">")
            .append(Html.escape(e.getValue()))
            .append("</td></tr>\n");
      }
      b.append("</table>\n");
    }
    b.append("<p>The same as JSON: <a href=\"/status\">/status</a>; metrics: ")
        .append("<a href=\"/metrics\">/metrics</a>.</p>\n</body></html>\n");
    return b.toString();
  }

  private static void usage(StringBuilder b, long used, long capacity) {
    double share = capacity > 0 ? Math.min(1.0, Math.max(0.0, (double) used / capacity)) : 0;
    b.append("<span class=\"bar\"><span style=\"width:")
        .append(String.format(Locale.ROOT, "%.0f", share * 100))
        .append("%\"></span></span>")
        .append(mib(used))
        .append(" / ")
        .append(mib(capacity))
        .append(" MiB");
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,d", bytes >> 20);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    return o instanceof List<?> l ? (List<Object>) l : List.of();
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
