package io.sluice.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.auth.AuthOptions;
import io.sluice.common.config.SluiceConf;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.CoordinatorServer;
import io.sluice.coordinator.CoordinatorTestSupport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may make admin calls: off loopback, only a caller with the admin token. A coordinator whose
 * HTTP port listens on every address (0.0.0.0) with no token configured refuses every admin call,
 * naming both settings, while its status stays readable.
 */
class AdminAccessTest {
  private static final String TOKEN = "admin-token-0123456789abcdef0123456789";

  @TempDir Path dir;

  @Test
  void onlyLoopbackAddressesCountAsLoopback() {
    assertTrue(AuthOptions.isLoopback("127.0.0.1"));
    assertTrue(AuthOptions.isLoopback("localhost"));
    assertTrue(AuthOptions.isLoopback("::1"));
    assertFalse(AuthOptions.isLoopback("0.0.0.0"), "every address, loopback among them");
    assertFalse(AuthOptions.isLoopback("no-such-host.invalid"));
  }

  @Test
  void offLoopbackWithoutATokenEveryAdminCallIsRefused() throws Exception {
    CoordinatorServer coordinator =
        CoordinatorTestSupport.start(
            CoordinatorTestSupport.conf()
                .with(CoordinatorOptions.BIND_HOST, "0.0.0.0")
                .with(AuthOptions.INSECURE_OFF_LOOPBACK, "true"));
    try {
      int http = coordinator.httpPort();
      HttpResponse<String> refused = CoordinatorTestSupport.post(http, "/admin/exclude?server=s1");
      assertEquals(403, refused.statusCode(), refused.body());
      assertTrue(
          refused
              .body()
              .contains(
                  "listens on 0.0.0.0 ('coordinator.bind.host'), off "
                      + "loopback and no admin token is configured ('coordinator.admin.token.file')"),
          refused.body());
      assertEquals(200, CoordinatorTestSupport.get(http, "/status").statusCode());
    } finally {
      coordinator.close();
    }
  }

  @Test
  void offLoopbackTheTokenOpensAdminCalls() throws Exception {
    Path tokenFile = Files.writeString(dir.resolve("admin.token"), TOKEN);
    Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    SluiceConf conf =
        CoordinatorTestSupport.conf()
            .with(CoordinatorOptions.BIND_HOST, "0.0.0.0")
            .with(AuthOptions.INSECURE_OFF_LOOPBACK, "true")
            .with(CoordinatorOptions.ADMIN_TOKEN_FILE, tokenFile.toString());
    CoordinatorServer coordinator = CoordinatorTestSupport.start(conf);
    try {
      int http = coordinator.httpPort();
      assertEquals(401, CoordinatorTestSupport.post(http, "/admin/exclude?server=s1").statusCode());
      HttpResponse<String> excluded =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + http + "/admin/exclude?server=s1"))
                      .header("Authorization", "Bearer " + TOKEN)
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, excluded.statusCode(), excluded.body());
    } finally {
      coordinator.close();
    }
  }
}
