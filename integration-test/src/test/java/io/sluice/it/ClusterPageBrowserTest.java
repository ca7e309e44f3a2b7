package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.server.ShuffleServer;
import io.sluice.testcluster.MiniCluster;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's {@code /cluster} page as an operator sees it: a live coordinator with two
 * servers, the page loaded in a real browser ({@link HeadlessChromium}), and the DOM it rendered
 * checked for every server and its condition.
 */
class ClusterPageBrowserTest {
  @TempDir Path profile;

  @Test
  void headlessChromiumRendersTheLiveCluster() throws Exception {
    try (MiniCluster cluster = new MiniCluster(2, Map.of())) {
      String url = "http://127.0.0.1:" + cluster.coordinator().httpPort() + "/cluster";
      String dom = HeadlessChromium.dom(url, profile);
      assertTrue(
          dom.contains("<title>Sluice cluster: " + cluster.coordinator().id() + "</title>"), dom);
      for (ShuffleServer server : cluster.servers()) {
        assertTrue(
            dom.contains("<td>" + server.serverId() + "</td>"), server.serverId() + " in " + dom);
      }
      assertEquals(
          2, dom.split("class=\"active\">active<", -1).length - 1, "both servers active: " + dom);
    }
  }
}
