package io.sluice.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterPageTest {
  private static Map<String, Object> status(String serverId, String user) {
    Map<String, Object> disk =
        Map.of(
            "path", "/data/1", "totalBytes", 100L << 30, "usedBytes", 25L << 30, "healthy", true);
    Map<String, Object> server = new LinkedHashMap<>();
    server.put("id", serverId);
    server.put("host", "shuffle-1");
    server.put("port", 19999);
    server.put("httpPort", 19998);
    server.put("condition", "active");
    server.put("reportedState", "active");
    server.put("version", "0.1.0");
    server.put("pushBufferUsed", 512L << 20);
    server.put("pushBufferCapacity", 1L << 30);
    server.put("readBufferUsed", 0L);
    server.put("readBufferCapacity", 256L << 20);
    server.put("partitionsHeld", 42);
    server.put("partitionsPending", 0L);
    server.put("disks", List.of(disk));
    server.put("lastHeartbeatAgeMillis", 120L);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("coordinator", "coord-1");
    s.put("uptimeSeconds", 60L);
    s.put("heartbeatTimeoutMillis", 30_000L);
    s.put("serverCounts", Map.of("registered", 1, "active", 1));
    s.put("servers", List.of(server));
    s.put("excluded", Map.of());
    s.put("applications", Map.of("registered", 1, "byUser", Map.of(user, 1)));
    return s;
  }

  @Test
  void showsEveryServerWithItsConditionAndLoad() {
    String page = ClusterPage.render(status("server-a", "alice"));
    assertTrue(page.startsWith("<!DOCTYPE html>"), page);
    assertTrue(
        page.contains(
            "<td>server-a</td><td>shuffle-1:19999 (HTTP 19998)</td>"
                + "<td class=\"active\">active</td>"),
        page);
    assertTrue(page.contains("512 / 1,024 MiB"), page);
    assertTrue(page.contains("1 / 1"), "disks healthy / all: " + page);
    assertTrue(page.contains("<td>alice</td>"), page);
  }

  @Test
  void valuesFromPeersCannotInjectMarkup() {
    String page = ClusterPage.render(status("<script>alert(1)</script>", "\"><img src=x>"));
    assertFalse(page.contains("<script>"), page);
    assertFalse(page.contains("<img"), page);
    assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), page);
  }
}
